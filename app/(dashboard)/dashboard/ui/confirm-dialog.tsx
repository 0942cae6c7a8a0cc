"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { BusyButton } from "./busy-button";

/**
 * A confirmation in a native modal <dialog>: focus is held inside it,
 * Escape cancels, and the browser gives the focus back to the button that
 * opened it. With `typeToConfirm`, the action stays unavailable until that
 * text is typed exactly.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  busy?: boolean;
  danger?: boolean;
  typeToConfirm?: { label: string; expected: string };
  onConfirm: () => void;
  onClose: () => void;
}) {
  const t = useTranslations("Dashboard.common");
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState("");
  const titleId = useId();
  const inputId = useId();
  const { open } = props;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      setTyped("");
      dialog.showModal();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);

  const matches = !props.typeToConfirm || typed.trim() === props.typeToConfirm.expected.trim();

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!props.busy) props.onClose();
      }}
    >
      <form
        method="dialog"
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (matches && !props.busy) props.onConfirm();
        }}
      >
        <h2 id={titleId} className="dialog-title">
          {props.title}
        </h2>
        <div className="stack dialog-body">{props.children}</div>
        {props.typeToConfirm ? (
          <div className="field">
            <label htmlFor={inputId}>{props.typeToConfirm.label}</label>
            <input
              id={inputId}
              type="text"
              autoComplete="off"
              spellCheck={false}
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
            />
          </div>
        ) : null}
        <div className="actions dialog-actions">
          <BusyButton
            type="submit"
            className={props.danger ? "button-danger" : "button"}
            busy={Boolean(props.busy)}
            busyLabel={props.busyLabel}
            disabled={!matches}
          >
            {props.confirmLabel}
          </BusyButton>
          <button
            type="button"
            className="button-secondary"
            onClick={() => {
              if (!props.busy) props.onClose();
            }}
          >
            {t("cancel")}
          </button>
        </div>
      </form>
    </dialog>
  );
}
