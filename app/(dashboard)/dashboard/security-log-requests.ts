/**
 * The security log's read of /api/partner/audit-events: one page of the
 * partner's events, newest first, or null when it could not be read.
 */

export type Actor = { kind: string; email?: string | null; clientId?: string | null };
export type AuditEvent = {
  id: string;
  at: string;
  type: string;
  actor: Actor;
  clientId: string | null;
  subject: string | null;
  clientIp: string | null;
  details: Record<string, unknown>;
};
export type Page = { events: AuditEvent[]; next: string | null };

/** The page of events of `type` (all when empty) older than `before` (the newest when null). */
export async function fetchAuditPage(
  partnerId: string,
  type: string,
  before: string | null,
): Promise<Page | null> {
  const query = new URLSearchParams({ partner: partnerId });
  if (type) query.set("type", type);
  if (before) query.set("before", before);
  const response = await fetch(`/api/partner/audit-events?${query}`).catch(() => null);
  return response?.ok ? ((await response.json().catch(() => null)) as Page | null) : null;
}
