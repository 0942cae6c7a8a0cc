import { PasskeyIcon } from "./passkey-icon";

/**
 * A button that asks the device for a passkey: the passkey mark, then its
 * label, or the busy label while the device is asked (the button is then
 * disabled, so a second press cannot start a second ceremony).
 */
export function PasskeyButton(props: {
  label: string;
  busyLabel: string;
  busy: boolean;
  onClick: () => void;
  /** The button's look; the passkey mark's spacing is added to it. */
  className?: string;
  "aria-describedby"?: string;
}) {
  return (
    <button
      type="button"
      className={`${props.className ?? "button"} passkey-button`}
      disabled={props.busy}
      onClick={props.onClick}
      aria-describedby={props["aria-describedby"]}
    >
      <PasskeyIcon />
      {props.busy ? props.busyLabel : props.label}
    </button>
  );
}
