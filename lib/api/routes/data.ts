import { z } from "zod";
import * as examples from "../openapi-examples";
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from "../paging";
import {
  AccountPage,
  AccountWire,
  AuthorizationRequest,
  AuthorizationUrl,
  BankWire,
  BulkSyncRequest,
  BulkSyncResult,
  ConnectionWire,
  SyncRequest,
  SyncResult,
  TransactionPage,
} from "../schemas";
import {
  apiKey,
  error,
  json,
  jsonBody,
  keyRefusals,
  linkHeader,
  param,
  pathId,
  problem,
  tooLarge,
  type Operation,
} from "./shared";

/** The data API (/docs/data) and a person's own key's operations (docs/own-data.md). */

/** A partner's key on an operation for a person's own key only (docs/own-data.md). */
const partnerKeyRefused = error(
  "insufficient_scope: a partner's key; only a person's own key may do this",
  "insufficient_scope",
  "the accounts.read scope does not permit this operation",
);

const pageSize = z.number().int().min(1).max(MAX_PAGE_SIZE);
const cursor = (description: string) => param(z.string().optional(), description);
const accountId = { path: z.object({ id: pathId("Account id") }) };

export const dataPaths = {
  "/api/accounts": {
    get: {
      summary: "The user's accounts with sealed details and balances",
      description:
        "Without parameters, every account as a JSON array. With limit (and then cursor), one page: {items, next}.",
      security: apiKey,
      requestParams: {
        query: z.object({
          limit: param(
            pageSize.optional(),
            `Page size; asks for one page (with cursor alone: ${DEFAULT_PAGE_SIZE})`,
          ),
          cursor: cursor("The next value of the previous page"),
        }),
      },
      responses: {
        "200": {
          ...json(
            z.union([z.array(AccountWire), AccountPage]).meta({ unionOneOf: true }),
            examples.accountsExample,
          ),
          headers: linkHeader,
        },
        "400": error(
          "A bad, unknown or repeated parameter, named",
          "invalid_request",
          "limit must be an integer from 1 to 500",
        ),
        ...keyRefusals,
      },
    },
  },
  "/api/accounts/{id}/transactions": {
    get: {
      summary: "A page of an account's statement, newest first",
      security: apiKey,
      requestParams: {
        ...accountId,
        query: z.object({
          from: param(z.string().meta({ format: "date" }).optional(), "Earliest booking date"),
          to: param(z.string().meta({ format: "date" }).optional(), "Latest booking date"),
          limit: param(pageSize.default(DEFAULT_PAGE_SIZE), "Page size"),
          offset: param(
            z.number().int().min(0).max(MAX_OFFSET).default(0),
            "Rows to skip; deeper pages are read by cursor",
          ),
          cursor: cursor(
            "The next value of the previous page: continues after it, in the same time at any depth, with its from and to; not with offset",
          ),
        }),
      },
      responses: {
        "200": {
          ...json(TransactionPage, examples.transactionPageExample),
          headers: linkHeader,
        },
        "400": error(
          "A bad, unknown or repeated parameter, named; an offset past the deepest",
          "invalid_request",
          "limit must be an integer from 1 to 500",
        ),
        "404": error("No such account for this key", "not_found"),
        "503": problem(
          "transient (Retry-After): the account's first history is still being stored, or its next sync will complete it",
          503,
          "transient",
        ),
        ...keyRefusals,
      },
    },
  },
  "/api/connections": {
    get: {
      summary: "The user's bank consents",
      security: apiKey,
      responses: {
        "200": json(z.array(ConnectionWire), examples.connectionsExample),
        ...keyRefusals,
      },
    },
  },
  "/api/accounts/{id}/sync": {
    post: {
      summary: "Fetch what is new for one account",
      security: apiKey,
      requestParams: accountId,
      requestBody: jsonBody(SyncRequest, examples.syncRequestExample),
      responses: {
        "200": json(SyncResult, examples.syncResultExample),
        "400": problem("invalid_request", 400, "invalid_request"),
        "404": problem("not_found", 404, "not_found"),
        "409": problem(
          "reconnect_needed, consent_withdrawn, uid_outdated, psu_present_required, psu_headers_missing",
          409,
          "uid_outdated",
        ),
        "429": problem(
          "rate_limited (Retry-After), or the service's own limit without a body",
          429,
          "rate_limited",
        ),
        "502": problem("bank_error", 502, "bank_error"),
        "503": problem(
          "transient (Retry-After when the service was busy or out of time), or partner_app_inactive",
          503,
          "transient",
        ),
        "401": keyRefusals["401"],
        "403": keyRefusals["403"],
        "413": tooLarge,
      },
    },
  },
  "/api/sync": {
    post: {
      summary: "Fetch what is new for several accounts",
      security: apiKey,
      requestBody: jsonBody(BulkSyncRequest, examples.bulkSyncRequestExample),
      responses: {
        "200": json(BulkSyncResult, examples.bulkSyncResultExample),
        "400": problem("invalid_request", 400, "invalid_request"),
        "413": tooLarge,
        "503": problem(
          "transient (Retry-After): no sync slot free in time, or no account synced",
          503,
          "transient",
        ),
        ...keyRefusals,
      },
    },
  },
} satisfies Record<string, Record<string, Operation>>;

/** The bank list and connecting a bank: a person's own key only (docs/own-data.md). */
export const ownDataPaths = {
  "/api/aspsps": {
    get: {
      summary: "The banks that can be connected (a person's own key)",
      security: apiKey,
      requestParams: {
        query: z.object({
          country: param(
            z
              .string()
              .regex(/^[A-Za-z]{2}$/)
              .optional(),
            "ISO 3166-1 alpha-2, e.g. DK; every country when left out",
          ),
        }),
      },
      responses: {
        "200": json(z.array(BankWire), examples.banksExample),
        "400": error(
          "A country that is not an ISO 3166-1 alpha-2 code",
          "invalid_request",
          "country must be an ISO 3166-1 alpha-2 code, e.g. DK",
        ),
        "503": problem("transient: the bank list cannot be read now", 503, "transient"),
        ...keyRefusals,
        "403": partnerKeyRefused,
      },
    },
  },
  "/api/authorizations": {
    post: {
      summary: "Start connecting a bank: its consent page (a person's own key)",
      description:
        "The bank sends the browser back to this service, which stores the connection for the key's person; it then appears in GET /api/connections.",
      security: apiKey,
      requestBody: jsonBody(AuthorizationRequest, examples.authorizationRequestExample),
      responses: {
        "200": json(AuthorizationUrl, examples.authorizationUrlExample),
        "400": problem("invalid_request", 400, "invalid_request"),
        "404": problem("not_found: no such bank in the country", 404, "not_found"),
        "409": problem("key_required: the person has not set up a key", 409, "key_required"),
        "413": tooLarge,
        "502": problem("bank_error", 502, "bank_error"),
        "503": problem("transient", 503, "transient"),
        ...keyRefusals,
        "403": partnerKeyRefused,
      },
    },
  },
} satisfies Record<string, Record<string, Operation>>;
