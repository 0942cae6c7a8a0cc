import type { ReactNode } from "react";
import { BusyButton } from "./busy-button";

/** A dashboard form's submit row: the button, any further actions, and what the last save said. */
export function FormActions(props: {
  busy: boolean;
  busyLabel: string;
  submitLabel: string;
  status: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="actions">
      <BusyButton type="submit" busy={props.busy} busyLabel={props.busyLabel}>
        {props.submitLabel}
      </BusyButton>
      {props.children}
      <span role="status" className="save-status">
        {props.status}
      </span>
    </div>
  );
}
