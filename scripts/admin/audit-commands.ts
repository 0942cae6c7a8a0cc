import { userInfo } from "node:os";
import { AUDIT_EVENT_TYPES, type AuditContext, isAuditEventType } from "../../lib/audit/events";
import {
  AUDIT_RETENTION_DAYS,
  listAuditEvents,
  pruneAuditEvents,
  type AuditEventRow,
} from "../../lib/audit/query";
import { isUuid } from "../../lib/db/uuid";
import type { Command } from "./commands";
import { optionalString, UsageError, type OptionValues } from "./options";

/**
 * Reading and trimming the audit log (docs/audit-log.md), and the actor the
 * CLI's own changes are recorded as.
 */

/** The operator: the account running the CLI on the server; no client address. */
export function operatorAudit(): AuditContext {
  let name = "unknown";
  try {
    name = userInfo().username || name;
  } catch {
    // No passwd entry for this uid (some containers): the kind still says "operator".
  }
  return { actor: { kind: "operator", id: name }, clientIp: null };
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const DEFAULT_RETENTION_DAYS = AUDIT_RETENTION_DAYS;
const DAY_MS = 24 * 60 * 60 * 1000;

function optionalUuid(values: OptionValues, name: string): string | undefined {
  const value = optionalString(values, name);
  if (value !== undefined && !isUuid(value)) throw new UsageError(`--${name} must be a UUID`);
  return value;
}

export function wholeNumber(
  values: OptionValues,
  name: string,
  fallback: number,
  max: number,
): number {
  const text = optionalString(values, name);
  if (text === undefined) return fallback;
  const value = /^\d{1,7}$/.test(text) ? Number(text) : 0;
  if (value < 1 || value > max) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

export function optionalTime(values: OptionValues, name: string): Date | undefined {
  const text = optionalString(values, name);
  if (text === undefined) return undefined;
  const at = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? new Date(text)
    : null;
  if (!at || Number.isNaN(at.getTime())) {
    throw new UsageError(`--${name} must be an ISO 8601 date or time, e.g. 2026-11-01T00:00:00Z`);
  }
  return at;
}

function toEventOutput(row: AuditEventRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    type: row.type,
    actor_kind: row.actorKind,
    actor_id: row.actorId,
    partner_id: row.partnerId,
    client_id: row.clientId,
    user_id: row.userId,
    subject: row.subject,
    client_ip: row.clientIp,
    details: row.details,
  };
}

export const AUDIT_COMMANDS: readonly Command[] = [
  {
    name: "audit list",
    usage:
      "audit list [--partner <partner-id>] [--client <client-id>] [--user <user-id>] [--type <type>] [--since <iso-time>] [--limit <n>]",
    summary: `list security events as JSON, newest first (${DEFAULT_LIMIT} unless --limit, at most ${MAX_LIMIT})`,
    details: [
      "Filters combine: --partner and --client match the partner or client an event concerns,",
      "--user the person (a sign-in's account, a key's user, a new owner), --since the oldest time.",
      "Sign-in events belong to no partner: find them with --type or --user.",
      "",
      "types:",
      ...AUDIT_EVENT_TYPES.map((type) => `  ${type}`),
    ].join("\n"),
    options: {
      partner: { type: "string" },
      client: { type: "string" },
      user: { type: "string" },
      type: { type: "string" },
      since: { type: "string" },
      limit: { type: "string" },
    },
    async run(values) {
      const type = optionalString(values, "type");
      if (type !== undefined && !isAuditEventType(type)) {
        throw new UsageError(`--type must be one of ${AUDIT_EVENT_TYPES.join(", ")}`);
      }
      const partnerId = optionalUuid(values, "partner");
      const userId = optionalUuid(values, "user");
      const clientId = optionalString(values, "client");
      const since = optionalTime(values, "since");
      const rows = await listAuditEvents({
        ...(partnerId ? { partnerId } : {}),
        ...(clientId ? { clientId } : {}),
        ...(userId ? { userId } : {}),
        ...(type ? { types: [type] } : {}),
        ...(since ? { since } : {}),
        limit: wholeNumber(values, "limit", DEFAULT_LIMIT, MAX_LIMIT),
      });
      return rows.map(toEventOutput);
    },
  },
  {
    name: "audit prune",
    usage: "audit prune [--days <n>]",
    summary: `delete security events older than n days (default ${DEFAULT_RETENTION_DAYS})`,
    details:
      "Run it daily (cron, a systemd timer) so the log keeps no more than the retention you chose.",
    options: { days: { type: "string" } },
    async run(values) {
      const days = wholeNumber(values, "days", DEFAULT_RETENTION_DAYS, 100_000);
      const before = new Date(Date.now() - days * DAY_MS);
      return { deleted: await pruneAuditEvents(before), before: before.toISOString() };
    },
  },
];
