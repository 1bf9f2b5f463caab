/**
 * A button whose action waits for an in-app confirmation: it opens the app's modal `<Dialog>` as an
 * alertdialog (the page behind is inert, Escape or Cancel closes it, focus returns to this button)
 * instead of `window.confirm`, which blocks the page, cannot be styled or themed, and which the
 * browser may suppress ("prevent this page from creating additional dialogs").
 *
 * Cancel has focus when the dialog opens, as in every other destructive confirmation of the app
 * (Delete episode, Delete all): an Enter or a stray tap meant for something else deletes nothing. The dialog closes before `onConfirm` runs, so an action that removes
 * this button (deleting its own row) cannot leave an orphaned dialog behind.
 */
import { useState, type ReactNode } from 'react';
import { Dialog } from './Dialog';

export interface ConfirmButtonProps {
  /** The dialog's title, e.g. "Delete conversation". */
  readonly title: string;
  /** What will happen, in a sentence a person can decide on. */
  readonly message: ReactNode;
  /** The confirming button's text, e.g. "Delete for good". */
  readonly confirmLabel: string;
  readonly onConfirm: () => void;
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
  className,
  buttonTitle,
  tabIndex,
  disabled,
  children,
  ...rest
}: ConfirmButtonProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className={className}
        aria-label={rest['aria-label']}
        title={buttonTitle}
        tabIndex={tabIndex}
        disabled={disabled}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {children}
      </button>
      {open && (
        <Dialog title={title} role="alertdialog" onClose={() => setOpen(false)}>
          <p>{message}</p>
          <div className="buttons">
            <button
              type="button"
              className="danger"
              onClick={() => {
                setOpen(false);
                onConfirm();
              }}
            >
              {confirmLabel}
            </button>
            <button type="button" data-autofocus onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
