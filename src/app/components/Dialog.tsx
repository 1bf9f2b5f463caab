/**
 * Every overlay of the app is this one component over the platform's modal `<dialog>`:
 * `showModal()` puts it in the top layer and makes the rest of the page inert (Tab, clicks and the
 * accessibility tree stay inside, `aria-modal` is implied), Escape fires `cancel`, and we return
 * focus to whatever held it before. No hand-written focus trap, so the behaviour cannot drift.
 *
 * React owns whether a dialog exists: the dialog is shown when it mounts and closed when it
 * unmounts. When the platform closes it first (Escape, or Chromium's close watcher forcing a
 * close), the `close` event asks the owner to unmount it; an owner that keeps it gets it shown
 * again, so the two never disagree.
 *
 * Without `onClose` a dialog cannot be dismissed (the memory's state screens: there is nothing
 * behind them to go back to): no close button, Escape's `cancel` is refused, a backdrop click does
 * nothing, and a close Chromium forces anyway (a second Escape with no click between) is undone.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { OutsideMenu } from './MoreMenu';

export interface DialogProps {
  readonly title: string;
  /** The title stays available to assistive technology but is not drawn (the body has its own heading). */
  readonly hideTitle?: boolean;
  /** Absent: the dialog cannot be dismissed; only its owner removes it. */
  readonly onClose?: () => void;
  readonly wide?: boolean;
  /** The close button's accessible name (e2e specs and screen readers rely on it). */
  readonly closeLabel?: string;
  /** 'alertdialog' for a confirmation that interrupts (delete for good, replace memory). */
  readonly role?: 'dialog' | 'alertdialog';
  readonly className?: string;
  /** A test id for the dialog element itself. */
  readonly testId?: string;
  readonly children: ReactNode;
}

export function Dialog({ title, hideTitle, onClose, wide, closeLabel, role, className, testId, children }: DialogProps) {
  const titleId = useId();
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  const dismissible = onClose !== undefined;

  useEffect(() => {
    const node = ref.current;
    if (!node) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    let unmounting = false;
    const onPlatformClose = () => {
      if (unmounting) return;
      closeRef.current?.();
      // An owner may refuse (an import that must be stopped with its own button): show it again.
      setTimeout(() => {
        if (!unmounting && node.isConnected && !node.open) node.showModal();
      }, 0);
    };
    // Escape asks first (`cancel`); a dialog without onClose says no.
    const onCancel = (e: Event) => {
      if (!closeRef.current) e.preventDefault();
    };
    node.addEventListener('close', onPlatformClose);
    node.addEventListener('cancel', onCancel);
    if (!node.open) node.showModal();
    // An element marked data-autofocus wins over the platform's choice (the first focusable one).
    node.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      unmounting = true;
      node.removeEventListener('close', onPlatformClose);
      node.removeEventListener('cancel', onCancel);
      if (node.open) node.close();
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  return createPortal(
    <dialog
      ref={ref}
      className={`card${wide ? ' wide' : ''}${className ? ` ${className}` : ''}`}
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      aria-labelledby={titleId}
      data-testid={testId}
      // A click on the backdrop lands on the dialog element itself (its content box is the card).
      onMouseDown={(e) => {
        if (e.target !== e.currentTarget) return;
        const r = e.currentTarget.getBoundingClientRect();
        const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
        if (!inside) closeRef.current?.();
      }}
    >
      <div className="card-header">
        <h2 id={titleId} className={hideTitle ? 'visually-hidden' : undefined}>
          {title}
        </h2>
        {dismissible && (
          <button
            type="button"
            className="close"
            aria-label={closeLabel ?? `Close ${title.toLowerCase()}`}
            onClick={() => closeRef.current?.()}
          >
            ×
          </button>
        )}
      </div>
      <OutsideMenu>{children}</OutsideMenu>
    </dialog>,
    document.body,
  );
}
