import type { z } from "zod";
import {
  ClientMetadataBody,
  MAX_CLIENT_NAME,
  NewClientMetadataBody,
  type ClientWire,
  type NewClientWire,
  type RotatedSecretWire,
} from "./schemas";
import { ownerAudit } from "../audit/context";
import type { AuditContext } from "../audit/events";
import { db } from "../db/client";
import { isDatabaseUnavailable } from "../db/faults";
import { temporarilyUnavailable } from "../http/outage";
import { errorJson, NO_STORE, privateJson } from "../http/respond";
import { log } from "../log";
import {
  createClient,
  deletePartnerClient,
  listClients,
  rotateClientSecret,
  updatePartnerClient,
  type ClientSummary,
} from "./clients";
import { PartnerError, type PartnerErrorCode } from "./errors";
import { authenticateOwner } from "./owner-session";
import { readJsonBody } from "../http/body-limits";
import type { FieldViolation } from "./violations";
import { fieldViolations, type BodyDescription } from "./field-violations";

/**
 * The partner dashboard's Connect-client management (the owner's interactive
 * session only; API keys get 403 like everywhere outside the data operations of
 * /docs/data):
 *
 *   GET    /api/partner/clients                            list
 *   POST   /api/partner/clients                            create (secret shown once)
 *   PATCH  /api/partner/clients/{clientId}                 rename, replace redirect URIs
 *   POST   /api/partner/clients/{clientId}/rotate-secret   new secret, previous valid 24 h
 *   DELETE /api/partner/clients/{clientId}                 delete (its API keys go with it)
 *
 * A client of another partner, or a house client, answers 404 and is never
 * touched: every lookup and write is scoped to the owner's partner.
 */

export { MAX_CLIENT_NAME };

export type ClientMetadataViolation = FieldViolation;

interface ClientMetadata {
  name?: string;
  redirectUris?: string[];
}

type MetadataParse =
  { ok: true; metadata: ClientMetadata } | { ok: false; violations: ClientMetadataViolation[] };

/** What the dashboard sees of a client: never a secret or a hash. */
function toClientWire(client: ClientSummary): z.infer<typeof ClientWire> {
  return {
    clientId: client.id,
    name: client.name,
    redirectUris: client.redirectUris,
    createdAt: client.createdAt.toISOString(),
    previousSecretExpiresAt: client.previousSecretExpiresAt?.toISOString() ?? null,
  };
}

const json = privateJson;
const refuse = errorJson;

const clientNotFound = () => refuse(404, "not_found", "no such client");

/** RFC 7591 §3.2.2's error code, with each violation named for the form field it belongs to. */
const invalidClientMetadata = (violations: ClientMetadataViolation[]) =>
  json(
    {
      error: "invalid_client_metadata",
      error_description: violations.map((violation) => violation.message).join("; "),
      violations,
    },
    400,
  );

/**
 * A create (every field required) or update (every field optional) body
 * (lib/partners/schemas.ts). Unknown fields are refused so a typo is not
 * silently ignored.
 */
export const clientMetadataBody = (mode: "create" | "update") =>
  mode === "create" ? NewClientMetadataBody : ClientMetadataBody;

const CLIENT_BODY: BodyDescription = {
  noun: "client",
  fields: ["name", "redirectUris"],
  missingIsRequired: true,
};

export function parseClientMetadata(body: unknown, mode: "create" | "update"): MetadataParse {
  const parsed = clientMetadataBody(mode).safeParse(body, { reportInput: true });
  if (!parsed.success) {
    return { ok: false, violations: fieldViolations(parsed.error.issues, CLIENT_BODY) };
  }
  const metadata: ClientMetadata = {};
  if (parsed.data.name !== undefined) metadata.name = parsed.data.name;
  if (parsed.data.redirectUris !== undefined) metadata.redirectUris = parsed.data.redirectUris;
  return { ok: true, metadata };
}

/** The JSON body; undefined (refused as not an object) when oversized or malformed. */
async function readMetadataBody(request: Request): Promise<unknown> {
  const read = await readJsonBody(request);
  return read.ok ? read.value : undefined;
}

/** The owner's partner's client, or null for an unknown one or one of anybody else. */
function findOwnedClient(partnerId: string, clientId: string) {
  return db().client.findFirst({ where: { id: clientId, partnerId } });
}

/** PartnerErrors the calls below can raise when a race is lost; anything else is a 500. */
const PARTNER_ERROR_RESPONSES = {
  unknown_partner: { status: 404, error: "not_found" },
  unknown_client: { status: 404, error: "not_found" },
  conflict: { status: 409, error: "conflict" },
  recipient_key_required: { status: 409, error: "recipient_key_required" },
  invalid_name: { status: 400, error: "invalid_client_metadata" },
  invalid_redirect_uris: { status: 400, error: "invalid_client_metadata" },
} as const satisfies Partial<Record<PartnerErrorCode, { status: number; error: string }>>;

function toErrorResponse(error: unknown, path: string): Response {
  if (error instanceof PartnerError && error.code in PARTNER_ERROR_RESPONSES) {
    const { status, error: code } =
      PARTNER_ERROR_RESPONSES[error.code as keyof typeof PARTNER_ERROR_RESPONSES];
    return refuse(status, code, error.message);
  }
  if (isDatabaseUnavailable(error)) {
    log.warn("partner.database_unavailable", { error, path });
    return temporarilyUnavailable();
  }
  log.error("partner.client_api_failed", { error, path });
  return refuse(500, "server_error", "something went wrong; try again");
}

/** Runs the operation for an authenticated owner; failures never leak internals. */
async function asOwner(
  request: Request,
  mutation: boolean,
  operation: (partnerId: string, audit: AuditContext) => Promise<Response>,
): Promise<Response> {
  try {
    const owner = await authenticateOwner(request, { mutation });
    if (owner instanceof Response) return owner;
    return await operation(owner.partnerId, ownerAudit(request, owner));
  } catch (error) {
    return toErrorResponse(error, new URL(request.url).pathname);
  }
}

/** The partner's clients as the API lists them (also what the dashboard starts from). */
export async function listPartnerClients(partnerId: string) {
  return (await listClients(partnerId)).map(toClientWire);
}

/** GET /api/partner/clients */
export function handleListClients(request: Request): Promise<Response> {
  return asOwner(request, false, async (partnerId) => json(await listPartnerClients(partnerId)));
}

/** POST /api/partner/clients: the secret is in this answer and nowhere else, ever. */
export function handleCreateClient(request: Request): Promise<Response> {
  return asOwner(request, true, async (partnerId, audit) => {
    const parsed = parseClientMetadata(await readMetadataBody(request), "create");
    if (!parsed.ok) return invalidClientMetadata(parsed.violations);
    const { name, redirectUris = [] } = parsed.metadata;
    const { client, clientSecret } = await createClient(
      { partnerId, redirectUris, ...(name === undefined ? {} : { name }) },
      audit,
    );
    log.info("partner.client_created", { partner_id: partnerId, client_id: client.id });
    return json(
      {
        clientId: client.id,
        clientSecret,
        name: client.name,
        redirectUris: client.redirectUris,
      } satisfies z.infer<typeof NewClientWire>,
      201,
    );
  });
}

/** PATCH /api/partner/clients/{clientId}: rename and/or replace the redirect URIs. */
export function handleUpdateClient(request: Request, clientId: string): Promise<Response> {
  return asOwner(request, true, async (partnerId, audit) => {
    if (!(await findOwnedClient(partnerId, clientId))) return clientNotFound();
    const parsed = parseClientMetadata(await readMetadataBody(request), "update");
    if (!parsed.ok) return invalidClientMetadata(parsed.violations);
    // Scoped to the partner again: the check above and this write are not one step.
    const updated = await updatePartnerClient(partnerId, clientId, parsed.metadata, audit);
    if (!updated) return clientNotFound();
    log.info("partner.client_updated", {
      partner_id: partnerId,
      client_id: clientId,
      fields: Object.keys(parsed.metadata),
    });
    return json(toClientWire(updated));
  });
}

/**
 * POST /api/partner/clients/{clientId}/rotate-secret (docs/protocol.md#client-authentication, /docs/errors): the new
 * secret is shown once; the previous one keeps working for 24 hours from `now`.
 */
export function handleRotateClientSecret(
  request: Request,
  clientId: string,
  now: Date = new Date(),
): Promise<Response> {
  return asOwner(request, true, async (partnerId, audit) => {
    if (!(await findOwnedClient(partnerId, clientId))) return clientNotFound();
    const rotated = await rotateClientSecret(clientId, now, audit);
    log.info("partner.client_secret_rotated", { partner_id: partnerId, client_id: clientId });
    return json({
      clientSecret: rotated.clientSecret,
      previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString(),
    } satisfies z.infer<typeof RotatedSecretWire>);
  });
}

/** DELETE /api/partner/clients/{clientId}: its codes and API keys go with it (onDelete: Cascade). */
export function handleDeleteClient(request: Request, clientId: string): Promise<Response> {
  return asOwner(request, true, async (partnerId, audit) => {
    if (!(await deletePartnerClient(partnerId, clientId, audit))) return clientNotFound();
    log.info("partner.client_deleted", { partner_id: partnerId, client_id: clientId });
    return new Response(null, { status: 204, headers: NO_STORE });
  });
}
