/**
 * A modal dialog for keyboard and screen-reader users: rendered over the app in a portal, the app
 * behind it made `inert` (so Tab, clicks and the accessibility tree stay inside), Tab cycling within
 * the dialog, Escape closing it, and focus returned to whatever held it before the dialog opened.
 * Every overlay of the app goes through this one component so the behaviour cannot drift.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** How many dialogs are open: the app stays inert until the last one closes. */
let open = 0;

function setAppInert(inert: boolean): void {
  const root = document.getElementById('root');
  if (root) root.inert = inert;
}

export interface DialogProps {
  readonly title: string;
  /** The title stays available to assistive technology but is not drawn (the body has its own heading). */
  readonly hideTitle?: boolean;
  readonly onClose: () => void;
  readonly wide?: boolean;
  /** The close button's accessible name (e2e specs and screen readers rely on it). */
  readonly closeLabel?: string;
  readonly children: ReactNode;
}

export function Dialog({ title, hideTitle, onClose, wide, closeLabel, children }: DialogProps) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    open++;
    setAppInert(true);
    const node = ref.current;
    // An element marked data-autofocus wins; otherwise the first control, else the dialog itself.
    const first = node?.querySelector<HTMLElement>('[data-autofocus]') ?? node?.querySelector<HTMLElement>(FOCUSABLE) ?? node;
    first?.focus();
    return () => {
      open--;
      if (open === 0) setAppInert(false);
      // After the app is interactive again, or focus() on an inert element is ignored.
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      closeRef.current();
      return;
    }
    if (e.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
    if (items.length === 0) {
      e.preventDefault();
      return;
    }
    const first = items[0]!;
    const last = items[items.length - 1]!;
    const active = document.activeElement;
    if (e.shiftKey && (active === first || !ref.current.contains(active))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (active === last || !ref.current.contains(active))) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && closeRef.current()}>
      <div ref={ref} className={`card${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown}>
        <div className="card-header">
          <h2 id={titleId} className={hideTitle ? 'visually-hidden' : undefined}>{title}</h2>
          <button type="button" className="close" aria-label={closeLabel ?? `Close ${title.toLowerCase()}`} onClick={() => closeRef.current()}>×</button>
        </div>
        {children}
      </div>
    </div>,
    document.body,
  );
}
