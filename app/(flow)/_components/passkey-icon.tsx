import "./passkey.css";

/** A key-and-person mark, the symbol platforms use for passkeys; decorative. */
export function PasskeyIcon() {
  return (
    <svg
      className="passkey-icon"
      viewBox="0 0 24 24"
      width="20"
      height="20"
      aria-hidden="true"
      focusable="false"
    >
      <circle cx="9" cy="7" r="4" fill="none" stroke="currentColor" strokeWidth="2" />
      <path
        d="M2 21v-1a6 6 0 0 1 6-6h2.5"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
      />
      <circle cx="17.5" cy="13.5" r="2.5" fill="none" stroke="currentColor" strokeWidth="2" />
      <path
        d="M17.5 16v5m0-2h2"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
      />
    </svg>
  );
}
