"use client";

/**
 * A destructive action on My access, asked twice: the button, then a group
 * that says what will happen with the action and a way back. The open group
 * is chosen by the list (one at a time).
 */
export function ConfirmAction(props: {
  id: string;
  open: boolean;
  busy: boolean;
  title: string;
  body: string;
  /** A second paragraph: what the action cannot undo. */
  note?: string;
  confirmLabel: string;
  cancelLabel: string;
  actionLabel: string;
  /** What the action acts on, for screen readers beside the repeated button label. */
  subject: string;
  onOpen: () => void;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  if (!props.open) {
    return (
      <button type="button" className="button-secondary" onClick={props.onOpen}>
        {props.actionLabel}
        <span className="visually-hidden">: {props.subject}</span>
      </button>
    );
  }
  return (
    <div className="account-confirm stack" role="group" aria-labelledby={props.id}>
      <h4 id={props.id}>{props.title}</h4>
      <p>{props.body}</p>
      {props.note ? <p className="account-confirm-note">{props.note}</p> : null}
      <div className="actions">
        <button
          type="button"
          className="button-danger"
          disabled={props.busy}
          onClick={props.onConfirm}
        >
          {props.confirmLabel}
        </button>
        <button type="button" className="button-secondary" onClick={props.onCancel}>
          {props.cancelLabel}
        </button>
      </div>
    </div>
  );
}
