/**
 * The dashboard's panels announce a change they made, so the security log
 * below them shows its event without a reload.
 */
export const DASHBOARD_CHANGED = "bank-connect:dashboard-changed";

export function announceChange(): void {
  window.dispatchEvent(new Event(DASHBOARD_CHANGED));
}
