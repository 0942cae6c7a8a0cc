import { z } from "zod";
import { PSU_TYPES } from "../upstream/types";

/**
 * The data API's wire shapes (/docs/data) as zod schemas: the sync handlers
 * parse their bodies with them, the wire mappers are typed by them, and
 * /openapi.json is generated from them, so the document cannot drift from
 * the code.
 */

const envelope = z
  .string()
  .describe(
    "An envelope (/docs/envelopes): base64 of version ‖ ephemeral key ‖ nonce ‖ tag ‖ ciphertext",
  );
const isoDate = z.string().describe("YYYY-MM-DD");
const isoDateTime = z.string().describe("ISO 8601 date-time, UTC");

export const BalanceWire = z
  .object({
    type: z.string().describe("ISO 20022 balance type: ITBD booked, ITAV available, …"),
    currency: z.string(),
    referenceDate: isoDate.nullable(),
    enc: envelope.describe("Opens to {amount, name}"),
  })
  .meta({ id: "Balance" });

export const AccountWire = z
  .object({
    id: z.string().describe("UUID"),
    aspspName: z.string(),
    aspspCountry: z.string(),
    currency: z.string(),
    accountType: z.string().nullable(),
    bic: z.string().nullable(),
    needsReconnect: z.boolean(),
    balances: z.array(BalanceWire),
    enc: envelope.nullable().describe("Opens to {ownerName, iban, bban, accountName, product}"),
    displayNameEnc: envelope.nullable().describe("Opens to {displayName}"),
    uidEnc: envelope.nullable().describe("Opens to {uid}; posted back to sync"),
  })
  .meta({ id: "Account" });

export const TransactionWire = z
  .object({
    id: z.string(),
    currency: z.string(),
    creditDebitIndicator: z.enum(["CRDT", "DBIT"]).or(z.string()),
    status: z.string().nullable(),
    bookingDate: isoDate.nullable(),
    valueDate: isoDate.nullable(),
    transactionDate: isoDate.nullable(),
    bankTransactionCode: z.string().nullable(),
    enc: envelope.describe("Opens to the transaction payload (/docs/envelopes)"),
  })
  .meta({ id: "Transaction" });

const nextCursor = z
  .string()
  .nullable()
  .describe(
    "Where the next page starts: pass it as cursor (opaque; also in the Link header); null on the last page",
  );

export const TransactionPage = z
  .object({
    items: z.array(TransactionWire),
    total: z
      .number()
      .int()
      .describe(
        "Rows matching the filter, not the page length; on a page read by cursor, the count when its first page was read",
      ),
    next: nextCursor,
  })
  .meta({ id: "TransactionPage" });

export const AccountPage = z
  .object({ items: z.array(AccountWire), next: nextCursor })
  .meta({ id: "AccountPage" });

export const ConnectionWire = z
  .object({
    sessionId: z.string().describe("The connection id; usable as renew_connection"),
    aspspName: z.string(),
    aspspCountry: z.string(),
    validUntil: isoDateTime,
    status: z.string(),
    accountCount: z.number().int(),
    lastSyncedAt: isoDateTime.nullable(),
    psuType: z.string().nullable(),
    isLive: z.boolean(),
    accountIds: z.array(z.string()),
  })
  .meta({ id: "Connection" });

const uid = z.string().min(1).max(2048).describe("The account's uid, decrypted from uidEnc");

export const SyncRequest = z.object({ uid }).meta({ id: "SyncRequest" });

export const MAX_BULK_ITEMS = 100;
export const BulkSyncRequest = z
  .object({
    items: z.array(z.object({ accountId: z.string().min(1).max(100), uid })).max(MAX_BULK_ITEMS),
  })
  .meta({ id: "BulkSyncRequest" });

export const SyncResult = z
  .object({ newTransactions: z.number().int(), totalFetched: z.number().int() })
  .meta({ id: "SyncResult" });

export const BulkSyncResult = z
  .object({
    accounts: z.number().int(),
    newTransactions: z.number().int(),
    failures: z.array(
      z.object({
        accountId: z.string(),
        reason: z.string(),
        bankErrorCode: z.string().nullable(),
        missingPsuHeaders: z.array(z.string()).optional(),
      }),
    ),
  })
  .meta({ id: "BulkSyncResult" });

export const SyncProblem = z
  .object({
    status: z.number().int(),
    reason: z
      .string()
      .describe(
        "A failure reason of /docs/sync, uid_outdated, psu_present_required, psu_headers_missing, …",
      ),
    bankErrorCode: z.string().optional(),
    missingPsuHeaders: z
      .array(z.string())
      .optional()
      .describe(
        "With psu_headers_missing and psu_present_required: the X-Psu-* headers to send, e.g. X-Psu-Geo-Location",
      ),
    detail: z.string().optional(),
  })
  .meta({ id: "SyncProblem" });

/** A bank that can be connected (`GET /api/aspsps`, a person's own key: docs/own-data.md). */
export const BankWire = z
  .object({
    name: z.string().describe("The bank's name, as POST /api/authorizations takes it"),
    country: z.string().describe("ISO 3166-1 alpha-2"),
    logo: z.string().nullable().describe("The bank's logo at the upstream, when it names one"),
    bic: z.string().nullable(),
    beta: z.boolean().describe("The upstream connects this bank in beta"),
    psuTypes: z.array(z.enum(PSU_TYPES)).describe("personal, business"),
  })
  .meta({ id: "Bank" });
export type BankWire = z.infer<typeof BankWire>;

/** `POST /api/authorizations`: which bank to connect, for which kind of customer. */
export const AuthorizationRequest = z
  .object({
    country: z.string().regex(/^[A-Za-z]{2}$/, "an ISO 3166-1 alpha-2 code, e.g. DK"),
    aspspName: z.string().min(1).max(200),
    psuType: z
      .enum(PSU_TYPES)
      .optional()
      .describe("personal or business; the bank's personal access when left out"),
  })
  .meta({ id: "AuthorizationRequest" });

export const AuthorizationUrl = z
  .object({ url: z.string().describe("The bank's consent page, to open in a browser") })
  .meta({ id: "AuthorizationUrl" });

export const ErrorBody = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .meta({ id: "Error" });
