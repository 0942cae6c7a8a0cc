/**
 * The dashboard's navigation, in order: each entry is a link and its label
 * (a key under `Dashboard.nav`). A new screen adds one entry here.
 */
export interface DashboardNavItem {
  key: "branding" | "clients" | "webhooks" | "key" | "log" | "analytics";
  /** Where it goes, relative to /dashboard; the chosen partner is kept by the bar. */
  href: string;
}

export const DASHBOARD_NAV: readonly DashboardNavItem[] = [
  { key: "branding", href: "/dashboard#branding" },
  { key: "clients", href: "/dashboard#clients" },
  { key: "webhooks", href: "/dashboard#webhooks" },
  { key: "key", href: "/dashboard#decryption-key" },
  { key: "log", href: "/dashboard#security-log" },
  { key: "analytics", href: "/dashboard/analytics" },
];

/** The item's address for the partner being managed (`?partner=` before any #). */
export function navHref(item: DashboardNavItem, partnerId: string | null): string {
  if (!partnerId) return item.href;
  const [path, hash] = item.href.split("#");
  const query = `?partner=${encodeURIComponent(partnerId)}`;
  return `${path}${query}${hash ? `#${hash}` : ""}`;
}
