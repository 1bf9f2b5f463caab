/**
 * The top bar's "More" menu: the controls people use now and then (models, export, imports) behind
 * one button, so the bar keeps only what is used daily. A disclosure menu: the button says
 * aria-haspopup="menu" and aria-expanded; items are role="menuitem"; arrow keys, Home and End move
 * between them; Escape or Tab closes it, Escape handing focus back to the button.
 *
 * The items stay mounted while the menu is closed (only hidden): the file inputs and dialogs they own
 * must outlive the menu. Choosing an item first gives focus to the More button, so a dialog opened
 * by that item hands focus back to it when it closes (Dialog.tsx returns focus to what held it).
 */
import { createContext, useContext, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

const InMenu = createContext(false);

/** Dialogs reset it: what an item's dialog draws is not in the menu (context crosses portals). */
export const OutsideMenu = ({ children }: { readonly children: ReactNode }) => <InMenu.Provider value={false}>{children}</InMenu.Provider>;

/** Props that make a button a menu item when it is drawn inside the More menu; nothing elsewhere. */
export function useMenuItemProps(): { role?: 'menuitem'; tabIndex?: number } {
  return useContext(InMenu) ? { role: 'menuitem', tabIndex: -1 } : {};
}

/** True inside the More menu (a component can leave out what does not belong in a menu). */
export function useInMenu(): boolean {
  return useContext(InMenu);
}

const items = (menu: HTMLElement | null) =>
  menu ? [...menu.querySelectorAll<HTMLElement>('[role="menuitem"]')].filter((el) => !el.hasAttribute('disabled')) : [];

export function MoreMenu({ inert, children }: { readonly inert?: boolean; readonly children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const wrapper = useRef<HTMLDivElement>(null);
  const id = useId();

  // A click anywhere outside closes it, as a native menu does.
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (!wrapper.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);

  const show = (focus: 'first' | 'last') => {
    setOpen(true);
    // Focus after the menu is drawn (hidden elements cannot take focus).
    requestAnimationFrame(() => {
      const list = items(menu.current);
      (focus === 'first' ? list[0] : list[list.length - 1])?.focus();
    });
  };

  const onMenuKey = (e: KeyboardEvent<HTMLDivElement>) => {
    // React bubbles events from a dialog an item portals out; those are not the menu's keys.
    if (!menu.current?.contains(e.target as Node)) return;
    const list = items(menu.current);
    const at = list.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => {
      e.preventDefault();
      list[(i + list.length) % list.length]?.focus();
    };
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(list.length - 1);
    else if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === 'Tab') setOpen(false);
  };

  return (
    <div className="more" ref={wrapper} inert={inert}>
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => (open ? setOpen(false) : show('first'))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            show('first');
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            show('last');
          }
        }}
      >
        More
      </button>
      <div
        ref={menu}
        id={id}
        role="menu"
        aria-label="More"
        className="more-menu"
        hidden={!open}
        onKeyDown={onMenuKey}
        onClickCapture={(e) => {
          // Before the item's own handler: a dialog it opens then remembers the More button.
          const target = e.target as HTMLElement;
          if (menu.current?.contains(target) && target.closest('[role="menuitem"]')) {
            button.current?.focus();
            setOpen(false);
          }
        }}
      >
        <InMenu.Provider value={true}>{children}</InMenu.Provider>
      </div>
    </div>
  );
}

/** A plain item of the More menu (one that is not also drawn elsewhere). */
export function MenuItem({ onClick, children }: { readonly onClick: () => void; readonly children: ReactNode }) {
  return (
    <button type="button" role="menuitem" tabIndex={-1} onClick={onClick}>
      {children}
    </button>
  );
}
