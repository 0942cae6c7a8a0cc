import { z } from "zod";
import { PARTNER_VISIBLE_TYPES } from "./events";

/** GET /api/partner/audit-events's answer; /openapi.json is generated from it. */

export const PartnerAuditEventWire = z
  .object({
    id: z.string(),
    at: z.string().describe("ISO 8601"),
    type: z.enum(PARTNER_VISIBLE_TYPES as [string, ...string[]]),
    actor: z
      .object({
        kind: z.enum(["user", "client", "operator", "system", "anonymous"]),
        email: z.string().nullable().optional().describe("An owner's email (kind user)"),
        clientId: z.string().nullable().optional().describe("kind client"),
      })
      .describe("Who acted"),
    clientId: z.string().nullable(),
    subject: z.string().nullable().describe("An API key's shown prefix (ebk_ and 8 characters)"),
    clientIp: z
      .string()
      .nullable()
      .describe(
        "The network address of the partner's own side (its owners, its servers with the client secret); null for an end user's action and the operator's CLI",
      ),
    details: z.record(z.string(), z.unknown()).describe("Per type; see docs/audit-log.md"),
  })
  .meta({ id: "AuditEvent" });

export const PartnerAuditPageWire = z
  .object({
    events: z.array(PartnerAuditEventWire).describe("Newest first"),
    next: z
      .string()
      .nullable()
      .describe(
        "An opaque cursor, bound to this partner: pass it unchanged as `before` for the older page; null on the last",
      ),
  })
  .meta({ id: "AuditEventPage" });
