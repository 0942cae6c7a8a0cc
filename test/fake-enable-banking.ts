import { createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeProtectedHeader,
  jwtVerify,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from "jose";
import type { FakeBankLedger } from "./fake-bank-ledger";

/**
 * A local stand-in for the Enable Banking API (docs/architecture.md#upstream-aggregators:
 * the connector is tested against a real HTTP server). Like the real one it checks the
 * application's JWT on every request (RS256 with the registered public key,
 * `kid` = application id, issuer, audience, a lifetime of at most 24 h) and
 * answers 401 otherwise; it serves ASPSPs, authorizations, sessions,
 * balances and transactions paged by `continuation_key`, and can be told to
 * fail the next requests with any status, body and headers.
 */

export const FAKE_ISSUER = "enablebanking.com";
export const FAKE_AUDIENCE = "api.enablebanking.com";
export const FAKE_AUTHORIZATION_CODE = "code-7f3a";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage["headers"];
  body: unknown;
  jwtHeader: ProtectedHeaderParameters | null;
  jwtPayload: JWTPayload | null;
  /**
   * The code a refused JWT is answered with, as the API reference's `ErrorCode` list names
   * them: `AUTHORIZATION_NOT_PROVIDED` when no `Authorization: Bearer` header came,
   * `UNAUTHORIZED_ACCESS` when the token does not verify (key, kid, issuer, audience, lifetime).
   */
  refusalCode?: "AUTHORIZATION_NOT_PROVIDED" | "UNAUTHORIZED_ACCESS";
}

export interface ScriptedAnswer {
  status: number;
  body?: unknown;
  /** Sent as is instead of `body` (e.g. an HTML error page). */
  rawBody?: string;
  headers?: Record<string, string>;
  /**
   * Milliseconds before this answer starts. Reference, `ErrorCode`: `ASPSP_TIMEOUT` is a
   * bank that did not answer Enable Banking in time; a late answer is what the connector
   * sees of it when its own timeout comes first.
   */
  delayMs?: number;
  /** Drops the connection instead of answering (a reset between here and the bank). */
  reset?: boolean;
}

export interface TransactionsPage {
  transactions: unknown[];
  continuation_key?: string | null;
}

export interface FakeEnableBankingOptions {
  applicationId: string;
  /** SPKI PEM of the application's registered key. */
  publicKey: string;
}

const errorBody = (status: number, error: string | undefined, message: string) => ({
  code: status,
  message,
  ...(error && { error }),
});

/**
 * The bank's limit of reads is spent. Reference, `ErrorCode`: `ASPSP_RATE_LIMIT_EXCEEDED`,
 * answered with 429 Too Many Requests; `Retry-After` (RFC 9110 §10.2.3, seconds or an HTTP
 * date) when the limit says when reads may resume.
 */
export function rateLimitedAnswer(retryAfter?: string): ScriptedAnswer {
  return {
    status: 429,
    body: errorBody(429, "ASPSP_RATE_LIMIT_EXCEEDED", "Rate limit exceeded"),
    ...(retryAfter !== undefined && { headers: { "Retry-After": retryAfter } }),
  };
}

export class FakeEnableBanking {
  readonly requests: RecordedRequest[] = [];
  /** Why a JWT was refused, in order (for assertions). */
  readonly rejections: string[] = [];
  applicationActive = true;
  /**
   * Reference, `GET /application`: `redirect_urls`, the URLs registered for the application,
   * the only ones `POST /auth` accepts as `redirect_url`.
   */
  redirectUrls: string[] = [];
  /**
   * Reference, `GET /aspsps`: each `ASPSP` may list `required_psu_headers` (lower case, e.g.
   * `["psu-ip-address", "psu-user-agent", "psu-geo-location"]`); reads of the session's accounts
   * then follow `psuHeadersRefusal` below.
   */
  aspsps: Record<string, unknown>[] = [];
  session: Record<string, unknown> = {};
  balances: Record<string, unknown[]> = {};
  /** Per account uid: the pages, each linking to the next by its `continuation_key`. */
  transactionPages: Record<string, TransactionsPage[]> = {};
  /**
   * Per account uid: a bank's day-by-day truth (test/fake-bank-ledger.ts), which then answers
   * the account's balances and transactions instead of `balances` and `transactionPages`.
   */
  ledgers: Record<string, FakeBankLedger> = {};
  /** Answers on the requests that come next, one each, after the JWT check. */
  readonly script: ScriptedAnswer[] = [];
  /** Milliseconds to wait before answering (for timeouts). */
  delayMs = 0;
  /** Answers whose client hung up before the whole body was sent. */
  abandoned = 0;
  /** Body bytes handed to the socket, per answer in order (cut short when the client hangs up). */
  readonly sentBytes: number[] = [];
  readonly closedSessions = new Set<string>();
  private readonly publicKey: KeyObject;
  private url_ = "";

  private readonly server = createServer((request, response) => {
    this.handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });

  constructor(private readonly options: FakeEnableBankingOptions) {
    this.publicKey = createPublicKey(options.publicKey);
  }

  get url(): string {
    return this.url_;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url_ = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Whether the JWT may pass; records why not. */
  private async verify(request: IncomingMessage, recorded: RecordedRequest): Promise<boolean> {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!token) {
      recorded.refusalCode = "AUTHORIZATION_NOT_PROVIDED";
      return this.reject("no bearer token");
    }
    recorded.refusalCode = "UNAUTHORIZED_ACCESS";
    try {
      recorded.jwtHeader = decodeProtectedHeader(token);
      if (recorded.jwtHeader.kid !== this.options.applicationId) return this.reject("wrong kid");
      const { payload } = await jwtVerify(token, this.publicKey, {
        issuer: FAKE_ISSUER,
        audience: FAKE_AUDIENCE,
        algorithms: ["RS256"],
        typ: "JWT",
        requiredClaims: ["iat", "exp"],
        maxTokenAge: "24h",
      });
      recorded.jwtPayload = payload;
      if ((payload.exp ?? 0) - (payload.iat ?? 0) > 24 * 60 * 60) {
        return this.reject("lifetime above 24 h");
      }
      delete recorded.refusalCode;
      return true;
    } catch (error) {
      return this.reject((error as { code?: string }).code ?? "invalid token");
    }
  }

  private reject(reason: string): false {
    this.rejections.push(reason);
    return false;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const recorded: RecordedRequest = {
      method: request.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      body: text ? (JSON.parse(text) as unknown) : null,
      jwtHeader: null,
      jwtPayload: null,
    };
    this.requests.push(recorded);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (response.destroyed) return;
    const answer = (await this.verify(request, recorded))
      ? (this.script.shift() ?? this.route(recorded))
      : { status: 401, body: errorBody(401, recorded.refusalCode, "Invalid or expired JWT") };
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    if (answer.reset) request.socket.destroy();
    if (response.destroyed) return;
    const body = answer.rawBody ?? (answer.body === undefined ? "" : JSON.stringify(answer.body));
    response.writeHead(answer.status, {
      ...(answer.body !== undefined && { "content-type": "application/json" }),
      ...answer.headers,
    });
    await this.send(response, Buffer.from(body));
  }

  /** Writes the body as fast as the client reads it, and stops when the client hangs up. */
  private async send(response: ServerResponse, body: Buffer): Promise<void> {
    let closed = false;
    response.once("close", () => {
      closed = true;
    });
    let sent = 0;
    while (sent < body.length && !closed) {
      const chunk = body.subarray(sent, sent + 64 * 1024);
      sent += chunk.length;
      if (response.write(chunk)) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off("drain", done);
          response.off("close", done);
          resolve();
        };
        response.on("drain", done);
        response.on("close", done);
      });
    }
    this.sentBytes.push(sent);
    if (closed) this.abandoned += 1;
    else response.end();
  }

  private route(request: RecordedRequest): ScriptedAnswer {
    const key = `${request.method} ${request.path}`;
    const account = /^\/accounts\/([^/]+)\/(balances|transactions)$/.exec(request.path);
    const session = /^\/sessions\/([^/]+)$/.exec(request.path);
    if (key === "GET /application") {
      return {
        status: 200,
        body: {
          name: "Test app",
          active: this.applicationActive,
          redirect_urls: this.redirectUrls,
        },
      };
    }
    if (key === "GET /aspsps") return { status: 200, body: { aspsps: this.aspspsOf(request) } };
    if (key === "POST /auth") return this.authorize(request);
    if (key === "POST /sessions") return this.createSession(request);
    if (request.method === "DELETE" && session) return this.deleteSession(session[1] ?? "");
    const psuRefusal = account && request.method === "GET" ? this.psuHeadersRefusal(request) : null;
    if (psuRefusal) return psuRefusal;
    const ledger = account && this.ledgers[decodeURIComponent(account[1] ?? "")];
    if (request.method === "GET" && ledger) return this.fromLedger(ledger, account[2], request);
    if (request.method === "GET" && account?.[2] === "balances") {
      const balances = this.balances[decodeURIComponent(account[1] ?? "")];
      return balances
        ? { status: 200, body: { balances } }
        : // Reference, `ErrorCode`: ACCOUNT_DOES_NOT_EXIST for an account uid it does not know.
          { status: 404, body: errorBody(404, "ACCOUNT_DOES_NOT_EXIST", "No such account") };
    }
    if (request.method === "GET" && account?.[2] === "transactions") {
      return this.transactions(decodeURIComponent(account[1] ?? ""), request.query);
    }
    // No such route: a plain 404 without an `ErrorCode` (the reference lists no code for it).
    return { status: 404, body: errorBody(404, undefined, "Not found") };
  }

  /**
   * A read of an account of the session's bank that carries PSU headers (the holder is present)
   * must carry every one of the bank's `required_psu_headers`. Reference, the `Psu-*` headers of
   * `GET /accounts/{account_id}/balances` and `/transactions` (the holder's own request details,
   * sent only when the holder is present), `ASPSP.required_psu_headers` of `GET /aspsps`, and
   * `ErrorCode`: `PSU_HEADER_NOT_PROVIDED`. A background read, without any PSU header, is served.
   */
  private psuHeadersRefusal(request: RecordedRequest): ScriptedAnswer | null {
    const present = Object.keys(request.headers).filter((name) => name.startsWith("psu-"));
    if (present.length === 0) return null;
    const bank = this.session.aspsp as { name?: unknown; country?: unknown } | undefined;
    const aspsp = this.aspsps.find(
      (candidate) => candidate.name === bank?.name && candidate.country === bank?.country,
    );
    const required = Array.isArray(aspsp?.required_psu_headers)
      ? (aspsp.required_psu_headers as unknown[]).map((name) => String(name).toLowerCase())
      : [];
    const missing = required.filter((name) => !present.includes(name));
    if (missing.length === 0) return null;
    return {
      status: 400,
      body: errorBody(400, "PSU_HEADER_NOT_PROVIDED", `Missing ${missing.join(", ")}`),
    };
  }

  private fromLedger(
    ledger: FakeBankLedger,
    resource: string | undefined,
    request: RecordedRequest,
  ): ScriptedAnswer {
    if (resource === "balances") return { status: 200, body: { balances: ledger.balancesJson() } };
    const answer = ledger.transactionsPage(request.query);
    return "page" in answer
      ? { status: 200, body: answer.page }
      : { status: answer.status, body: errorBody(answer.status, answer.error, "Refused") };
  }

  private aspspsOf(request: RecordedRequest) {
    const country = request.query.country;
    return this.aspsps.filter((aspsp) => !country || aspsp.country === country);
  }

  private authorize(request: RecordedRequest): ScriptedAnswer {
    const body = request.body as Record<string, Record<string, unknown> | undefined> | null;
    const complete =
      typeof body?.access?.valid_until === "string" &&
      typeof body.aspsp?.name === "string" &&
      typeof body.aspsp.country === "string" &&
      typeof body.state === "string" &&
      typeof body.redirect_url === "string" &&
      typeof body.psu_type === "string";
    if (!complete) {
      // Reference, `ErrorCode`: WRONG_REQUEST_PARAMETERS for a body missing required fields.
      return { status: 422, body: errorBody(422, "WRONG_REQUEST_PARAMETERS", "Bad request") };
    }
    const authorizationId = randomUUID();
    return {
      status: 200,
      body: {
        url: `${this.url}/bank/authorize?authorization_id=${authorizationId}`,
        authorization_id: authorizationId,
        psu_id_hash: "hash",
      },
    };
  }

  private createSession(request: RecordedRequest): ScriptedAnswer {
    const code = (request.body as { code?: unknown } | null)?.code;
    if (code !== FAKE_AUTHORIZATION_CODE) {
      // Reference, `POST /sessions` and `ErrorCode`: WRONG_AUTHORIZATION_CODE.
      return { status: 400, body: errorBody(400, "WRONG_AUTHORIZATION_CODE", "Bad code") };
    }
    return { status: 200, body: this.session };
  }

  private deleteSession(sessionId: string): ScriptedAnswer {
    if (this.closedSessions.has(sessionId)) {
      // Reference, `DELETE /sessions/{session_id}` and `ErrorCode`: CLOSED_SESSION.
      return { status: 400, body: errorBody(400, "CLOSED_SESSION", "Session is closed") };
    }
    this.closedSessions.add(sessionId);
    return { status: 200, body: { message: "OK" } };
  }

  private transactions(uid: string, query: Record<string, string>): ScriptedAnswer {
    const pages = this.transactionPages[uid];
    if (!pages) {
      // Reference, `ErrorCode`: ACCOUNT_DOES_NOT_EXIST.
      return { status: 404, body: errorBody(404, "ACCOUNT_DOES_NOT_EXIST", "No such account") };
    }
    if (!query.date_from) {
      // Reference, `ErrorCode`: WRONG_REQUEST_PARAMETERS for a query it cannot serve.
      return { status: 422, body: errorBody(422, "WRONG_REQUEST_PARAMETERS", "date_from") };
    }
    const key = query.continuation_key;
    const index = key ? pages.findIndex((_, i) => pages[i - 1]?.continuation_key === key) : 0;
    const page = pages[index];
    if (!page) {
      // Reference, transactions paging and `ErrorCode`: WRONG_CONTINUATION_KEY.
      return { status: 400, body: errorBody(400, "WRONG_CONTINUATION_KEY", "Bad key") };
    }
    return { status: 200, body: page };
  }
}

/**
 * An application key pair as an operator makes it for Enable Banking: RSA 2048, the public half
 * (SPKI PEM) registered with the application, the private half in PEM as `openssl genrsa`
 * writes it (PKCS#1 on OpenSSL 1.1 and LibreSSL) or as newer tools do (PKCS#8).
 */
export function applicationKeyPair(privateFormat: "pkcs8" | "pkcs1" = "pkcs8") {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: privateFormat, format: "pem" },
  });
}

export async function startFakeEnableBanking(
  options: FakeEnableBankingOptions,
): Promise<FakeEnableBanking> {
  const fake = new FakeEnableBanking(options);
  await fake.listen();
  return fake;
}

/**
 * Balances as a bank reports them, for `fake.balances`. Reference,
 * `GET /accounts/{account_id}/balances`: a list of balances, each with
 * `name`, `balance_amount`, `balance_type`, `reference_date`,
 * `last_change_date_time` and `last_committed_transaction`. Nothing in it
 * makes a type unique within the list: a bank whose systems each report one
 * gives the same type twice, told apart by `name` and `reference_date` (here
 * two `ITAV`, the core system's of yesterday and the card system's of today).
 */
export function balancesOfTwoSources(currency = "EUR"): Record<string, unknown>[] {
  return [
    {
      name: "Booked balance",
      balance_amount: { amount: "1520.40", currency },
      balance_type: "ITBD",
      reference_date: "2026-11-20",
      last_change_date_time: "2026-11-20T18:02:11+00:00",
      last_committed_transaction: "E-1001",
    },
    {
      name: "Available balance",
      balance_amount: { amount: "1490.40", currency },
      balance_type: "ITAV",
      reference_date: "2026-11-20",
    },
    {
      name: "Available for card payments",
      balance_amount: { amount: "1402.15", currency },
      balance_type: "ITAV",
      reference_date: "2026-11-21",
      last_change_date_time: "2026-11-21T07:45:00+00:00",
    },
  ];
}

/**
 * `exchange_rate` of a transaction. Reference, `Transaction.exchange_rate`: an
 * object, `{unit_currency, exchange_rate, rate_type, contract_identification,
 * instructed_amount}`, its rate a decimal string.
 * `reference` is that shape; the others are what a bank may send instead (the
 * rate bare, as a number or a string; another value; an object whose rate is
 * not a number), with the rate a reader can take from each (null: none).
 */
export const EXCHANGE_RATE_SHAPES: Record<string, { sent: unknown; rate: string | null }> = {
  reference: {
    sent: {
      unit_currency: "USD",
      exchange_rate: "0.9234",
      rate_type: "SPOT",
      contract_identification: null,
      instructed_amount: { amount: "25.00", currency: "USD" },
    },
    rate: "0.9234",
  },
  bareNumber: { sent: 0.9234, rate: "0.9234" },
  bareString: { sent: "0.9234", rate: "0.9234" },
  numberInObject: { sent: { unit_currency: "USD", exchange_rate: 0.9234 }, rate: "0.9234" },
  notARate: { sent: { unit_currency: "USD", exchange_rate: "n/a", rate_type: "SPOT" }, rate: null },
  rateAsObject: { sent: { exchange_rate: { value: "0.9234" } }, rate: null },
  words: { sent: "see statement", rate: null },
  list: { sent: [{ exchange_rate: "0.9234" }], rate: null },
  flag: { sent: true, rate: null },
};

/**
 * A bank's transaction code. Reference, `Transaction.bank_transaction_code`: an
 * object, `{description, code, sub_code}` (`code` the ISO 20022 family,
 * `sub_code` the sub-family), `description` the bank's own words for it.
 */
export const CARD_PURCHASE_CODE = {
  description: "Card purchase, contactless",
  code: "CCRD",
  sub_code: "POSD",
};
