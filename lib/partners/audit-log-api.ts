import type { z } from "zod";
import { db } from "../db/client";
import { answeringOutages, temporarilyUnavailable } from "../http/outage";
import { errorJson, privateJson } from "../http/respond";
import { authenticateOwner } from "./owner-session";
import {
  type API_KEY_REVOCATIONS,
  type AuditEventType,
  PARTNER_VISIBLE_TYPES,
} from "../audit/events";
import { type AuditEventRow, listAuditEvents, parseCursor, toCursor } from "../audit/query";
import type { PartnerAuditEventWire, PartnerAuditPageWire } from "../audit/wire";

/**
 * GET /api/partner/audit-events: the security log of the owner's partner
 * (docs/audit-log.md), for the dashboard. Same session rules as
 * /api/partner/me: an owner's browser session, `?partner=` for an owner of
 * several, API keys refused with 403.
 *
 * Query: `type` (one partner-visible type), `before` (the `next` cursor of
 * the previous page), `limit` (1–100, default 50). Answer: `{events, next}`,
 * newest first; `next` is null on the last page. The cursor is opaque and
 * bound to the partner (lib/audit/query.ts): another partner's, or a changed
 * one, answers 400.
 *
 * Only events stored with this partner's id are read, and only of the types
 * partners may see: never sign-ins, never another partner's events. Network
 * addresses are shown only for the partner's own side (partnerSideAddress).
 */

type ApiKeyRevocation = (typeof API_KEY_REVOCATIONS)[number];

export const AUDIT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

type Actor =
  | { kind: "user"; email: string | null }
  | { kind: "client"; clientId: string | null }
  | { kind: "operator" | "system" | "anonymous" };

export type PartnerAuditEvent = z.infer<typeof PartnerAuditEventWire>;

const badRequest = (description: string) => errorJson(400, "invalid_request", description);

interface PageQuery {
  types: readonly AuditEventType[];
  before: bigint | null;
  limit: number;
}

/** What a cursor is bound to: the partner whose log it pages. */
const cursorScope = (partnerId: string) => `partner:${partnerId}`;

function parsePageQuery(url: URL, partnerId: string): PageQuery | Response {
  const params = url.searchParams;
  for (const name of ["type", "before", "limit", "partner"]) {
    if (params.getAll(name).length > 1) return badRequest(`${name} may be given only once`);
  }
  const type = params.get("type");
  const visible = PARTNER_VISIBLE_TYPES.find((candidate) => candidate === type);
  if (type !== null && type !== "" && !visible) {
    return badRequest(`type must be one of ${PARTNER_VISIBLE_TYPES.join(", ")}`);
  }
  const beforeText = params.get("before");
  const before = beforeText ? parseCursor(beforeText, cursorScope(partnerId)) : null;
  if (beforeText && !before) {
    return badRequest("before must be the next value of a page of this partner's log, unchanged");
  }
  const limitText = params.get("limit") ?? String(AUDIT_PAGE_SIZE);
  const limit = /^\d{1,3}$/.test(limitText) ? Number(limitText) : 0;
  if (limit < 1 || limit > MAX_PAGE_SIZE) {
    return badRequest(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  return { types: visible ? [visible] : PARTNER_VISIBLE_TYPES, before, limit };
}

/**
 * API key revocations an end user caused (ending the access or deleting
 * everything at /account, starting over with a new key), whichever actor
 * they were recorded with.
 */
const END_USER_REVOCATIONS: ReadonlySet<unknown> = new Set<ApiKeyRevocation>([
  "user_ended_access",
  "user_deleted",
  "key_start_over",
]);

/**
 * The network address a partner is shown: only that of its own side, its
 * owners acting on the dashboard (`user` actors who own the partner) and its
 * servers calling the token and revocation endpoints with the client's
 * secret (`client` actors). An end user's address is theirs, not the
 * partner's to know, so a revocation an end user caused shows none; nor does
 * anything else (the operator's CLI has none).
 */
function partnerSideAddress(row: AuditEventRow, owners: ReadonlySet<string>): string | null {
  if (row.type === "api_key.revoked" && END_USER_REVOCATIONS.has(row.details.reason)) return null;
  if (row.actorKind === "client") return row.clientIp;
  if (row.actorKind === "user" && row.actorId !== null && owners.has(row.actorId)) {
    return row.clientIp;
  }
  return null;
}

/** The partner's owners now: whose dashboard actions show their address. */
async function ownersOf(partnerId: string): Promise<Set<string>> {
  const owners = await db().partnerOwner.findMany({
    where: { partnerId },
    select: { userId: true },
  });
  return new Set(owners.map((owner) => owner.userId));
}

/** The emails of the owners who acted: partners know their owners, not user ids. */
async function emailsOf(rows: AuditEventRow[]): Promise<Map<string, string>> {
  const ids = [
    ...new Set(
      rows.flatMap((row) => (row.actorKind === "user" && row.actorId ? [row.actorId] : [])),
    ),
  ];
  if (ids.length === 0) return new Map();
  const users = await db().user.findMany({
    where: { id: { in: ids } },
    select: { id: true, email: true },
  });
  return new Map(users.map((user) => [user.id, user.email]));
}

function toActor(row: AuditEventRow, emails: Map<string, string>): Actor {
  if (row.actorKind === "user")
    return { kind: "user", email: emails.get(row.actorId ?? "") ?? null };
  if (row.actorKind === "client") return { kind: "client", clientId: row.actorId };
  // The operator's account name on the server is for operators only.
  return { kind: row.actorKind };
}

/** One page of a partner's own events, as the dashboard shows them. */
export async function listPartnerAuditEvents(
  partnerId: string,
  query: PageQuery,
): Promise<z.infer<typeof PartnerAuditPageWire>> {
  const rows = await listAuditEvents({
    partnerId,
    types: query.types,
    limit: query.limit + 1,
    ...(query.before === null ? {} : { before: query.before }),
  });
  const page = rows.slice(0, query.limit);
  const [emails, owners] = await Promise.all([emailsOf(page), ownersOf(partnerId)]);
  const last = page.at(-1);
  return {
    events: page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      type: row.type,
      actor: toActor(row, emails),
      clientId: row.clientId,
      subject: row.subject,
      clientIp: partnerSideAddress(row, owners),
      details: row.details,
    })),
    next: rows.length > query.limit && last ? toCursor(last, cursorScope(partnerId)) : null,
  };
}

export const handlePartnerAuditEvents = answeringOutages(
  async (request: Request): Promise<Response> => {
    const owner = await authenticateOwner(request, { mutation: false });
    if (owner instanceof Response) return owner;
    const query = parsePageQuery(new URL(request.url), owner.partnerId);
    if (query instanceof Response) return query;
    return privateJson(await listPartnerAuditEvents(owner.partnerId, query));
  },
  temporarilyUnavailable,
);
