/**
 * A button whose action waits for an in-app confirmation: it opens the app's modal `<Dialog>` as an
 * alertdialog (the page behind is inert, Escape or Cancel closes it, focus returns to this button)
 * instead of `window.confirm`, which blocks the page, cannot be styled or themed, and which the
 * browser may suppress ("prevent this page from creating additional dialogs").
 *
 * Cancel has focus when the dialog opens, as in every other destructive confirmation of the app
 * (Delete episode, Delete all): an Enter or a stray tap meant for something else deletes nothing.
 *
 * An `onConfirm` that returns a promise (a deletion in the engine) keeps the dialog open while it
 * runs: the confirming button says `busyLabel` ("Deleting…"), both buttons are disabled and Escape
 * does nothing, so a person sees that the app is working and cannot confirm twice. When it settles
 * the dialog closes; when it fails, the dialog says why and can be tried again or cancelled. An
 * action that removes this button (deleting its own row) unmounts the dialog with it: nothing is
 * left behind.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Dialog } from './Dialog';

export interface ConfirmButtonProps {
  /** The dialog's title, e.g. "Delete conversation". */
  readonly title: string;
  /** What will happen, in a sentence a person can decide on. */
  readonly message: ReactNode;
  /** The confirming button's text, e.g. "Delete for good". */
  readonly confirmLabel: string;
  /** The action; a returned promise keeps the dialog open, busy, until it settles. */
  readonly onConfirm: () => void | Promise<unknown>;
  /** The confirming button's text while `onConfirm`'s promise runs, e.g. "Deleting…". */
  readonly busyLabel?: string;
  /** The opening button's own look and names. */
  readonly className?: string;
  readonly 'aria-label'?: string;
  readonly buttonTitle?: string;
  readonly tabIndex?: number;
  readonly disabled?: boolean;
  readonly children: ReactNode;
}

export function ConfirmButton({
  title,
  message,
  confirmLabel,
  onConfirm,
  busyLabel = 'Working…',
  className,
  buttonTitle,
  tabIndex,
  disabled,
  children,
  ...rest
}: ConfirmButtonProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const close = () => {
    setOpen(false);
    setFailure(null);
  };
  const confirm = async () => {
    if (busy) return;
    setFailure(null);
    const running = onConfirm();
    if (!running) {
      close();
      return;
    }
    setBusy(true);
    try {
      await running;
      if (mounted.current) close();
    } catch (err) {
      if (mounted.current) setFailure(err instanceof Error ? err.message : String(err));
    } finally {
      if (mounted.current) setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className={className}
        aria-label={rest['aria-label']}
        title={buttonTitle}
        tabIndex={tabIndex}
        disabled={disabled || busy}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {children}
      </button>
      {open && (
        <Dialog title={title} role="alertdialog" onClose={busy ? undefined : close}>
          <p>{message}</p>
          {failure && (
            <p role="alert" className="error">
              {failure}
            </p>
          )}
          <div className="buttons" aria-busy={busy}>
            <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>
              {busy ? busyLabel : failure ? 'Try again' : confirmLabel}
            </button>
            <button type="button" data-autofocus disabled={busy} onClick={close}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
