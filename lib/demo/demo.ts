import { createHmac, randomBytes } from "node:crypto";
import { isSameOrigin } from "../http/origin";
import { db, type Prisma } from "../db/client";
import { getEnv } from "../env";
import { cookieName, readCookie, serializeCookie } from "../http/cookies";
import { API_CSP } from "../http/security-headers";
import { openOptional } from "./envelope";
import {
  clearKeysCookie,
  KEYS_COOKIE_LIFETIME_SECONDS,
  KEYS_COOKIE_PATH,
  keysCookie,
  keysCookieName,
  openCredentials,
  sealCredentials,
  type DemoCredentials,
} from "./key-cookie";
import {
  discover,
  exchangeCode,
  getAccounts,
  revokeKey,
  syncAll,
  type Called,
  type DemoStep,
  type StepValues,
  type SyncResult,
} from "./partner-http";
import {
  buildAuthorizeUrl,
  constantTimeEquals,
  createCodeVerifier,
  createState,
  maskSecret,
  parseRelay,
  readRelayFields,
  toCodeChallenge,
  trimSlashes,
  type RelayFields,
} from "./protocol";
import {
  DEMO_CLIENT_ID,
  demoHash,
  demoRedirectUri,
  openFromStorage,
  sealForStorage,
} from "./secrets";
import { readFormBody } from "../http/body-limits";

/**
 * The demo partner at /demo: a partner backend that reaches the service only
 * over its public HTTP endpoints. Its database keeps one DemoSession row per
 * authorization a browser starts, bound to that browser by a keyed hash of a
 * random id in a first-party cookie; the row holds what the callback needs
 * and the masked protocol log, never a user's key. The API key and the
 * relayed private key go to the browser in an encrypted cookie (./key-cookie.ts).
 *
 * The callback is a cross-site form POST for a partner on another site, on
 * which browsers do not send SameSite=Lax cookies; so it finds the pending
 * session by the keyed hash of `state` alone, finishes the exchange, hands
 * the keys to the browser in the sealed cookie bound to that session, and
 * 303-redirects to /demo, whose top-level GET carries both cookies and shows
 * the session only to the browser that started it.
 */

/**
 * "revoked": this demo revoked its key. "ended": the service refused the key
 * (401 invalid_token: the person ended the access at their account page,
 * started over with a new key, or the key expired). "unreadable": the key
 * still reads, but the data no longer opens with the private key relayed to
 * the demo (it is sealed to another key).
 */
export type DemoStatus =
  "pending" | "processing" | "connected" | "denied" | "failed" | "revoked" | "ended" | "unreadable";

/** A flow lives 45 minutes on the service; the demo keeps a pending row a little longer. */
export const PENDING_LIFETIME_MS = 50 * 60 * 1000;
/** A connected row lives as long as the keys cookie it goes with. */
const CONNECTED_LIFETIME_MS = KEYS_COOKIE_LIFETIME_SECONDS * 1000;
const COOKIE_MAX_AGE_SECONDS = 24 * 60 * 60;
export const LATEST_TRANSACTIONS = 10;

const isHttps = () => getEnv().issuer.startsWith("https://");
export const demoCookieName = () => cookieName("demo_browser", isHttps());

export const isDemoEnabled = () => getEnv().demoEnabled;

const BASE_HEADERS = { "Cache-Control": "no-store", "Content-Security-Policy": API_CSP };

function redirect(location: string, ...setCookies: string[]): Response {
  const headers = new Headers({ ...BASE_HEADERS, Location: location });
  for (const cookie of setCookies) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 303, headers });
}

const plain = (status: number, text: string) =>
  new Response(text, {
    status,
    headers: { ...BASE_HEADERS, "Content-Type": "text/plain; charset=utf-8" },
  });

export const demoNotFound = () => plain(404, "Not found");

/**
 * One line of the protocol log: its English text, and where it has one, the
 * message the page shows it in (`Demo.steps.<key>`, with `values`).
 */
export const step = (
  label: string,
  detail: string,
  ok = true,
  text: { labelKey?: string; detailKey?: string; values?: StepValues } = {},
): DemoStep => ({ label, detail, ok, ...text });

const toJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

export function parseSteps(value: unknown): DemoStep[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    if (typeof item !== "object" || item === null) return [];
    const { label, detail, ok, labelKey, detailKey, values } = item as Record<string, unknown>;
    if (typeof label !== "string" || typeof detail !== "string") return [];
    return [
      {
        label,
        detail,
        ok: ok !== false,
        ...(typeof labelKey === "string" ? { labelKey } : {}),
        ...(typeof detailKey === "string" ? { detailKey } : {}),
        ...(isStepValues(values) ? { values } : {}),
      },
    ];
  });
}

function isStepValues(value: unknown): value is StepValues {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === "string" || typeof item === "number")
  );
}

/** The per-browser token of the start form (no session exists yet). */
export const startCsrfToken = (browserId: string) => demoHash("csrf", browserId);

/** The per-session token of the sync and revoke forms. */
export const sessionCsrfToken = (session: { csrfSecret: string }, action: "sync" | "revoke") =>
  createHmac("sha256", session.csrfSecret).update(`demo-csrf:${action}`).digest("base64url");

async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return new URLSearchParams();
  // A body over the limit is read as no form at all, which every demo step refuses.
  const read = await readFormBody(request);
  return read.ok ? read.value : new URLSearchParams();
}

/** The browser's latest live session, found only through its own cookie. */
export async function findBrowserSession(browserId: string | null | undefined) {
  if (!browserId) return null;
  return db().demoSession.findFirst({
    where: { browserHash: demoHash("browser", browserId), expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
}

export type DemoSessionRow = NonNullable<Awaited<ReturnType<typeof findBrowserSession>>>;

/** POST /demo/start: PKCE + state kept server-side, then off to /oauth/authorize. */
export async function handleDemoStart(request: Request): Promise<Response> {
  if (!isDemoEnabled()) return demoNotFound();
  if (!isSameOrigin(request)) return plain(403, "Forbidden");
  const form = await readForm(request);
  const existing = readCookie(request, demoCookieName());
  if (existing && !constantTimeEquals(startCsrfToken(existing), form.get("csrf") ?? "")) {
    return plain(403, "Forbidden");
  }
  const browserId = existing ?? randomBytes(32).toString("base64url");

  const now = new Date();
  await db().demoSession.deleteMany({ where: { expiresAt: { lt: now } } });
  const verifier = createCodeVerifier();
  const state = createState();
  const challenge = toCodeChallenge(verifier);
  const url = buildAuthorizeUrl({
    issuer: getEnv().issuer,
    clientId: DEMO_CLIENT_ID,
    redirectUri: demoRedirectUri(),
    state,
    codeChallenge: challenge,
  });
  const steps = [
    step(
      "PKCE (S256) and state created",
      `code_verifier kept sealed on the partner's server until the callback; code_challenge = ${challenge}; state = ${maskSecret(state)} (only its keyed hash is stored)`,
      true,
      {
        labelKey: "pkce",
        detailKey: "pkceDetail",
        values: { challenge, state: maskSecret(state) },
      },
    ),
    // The log is stored too, so it shows the state masked like everywhere else.
    step("GET /oauth/authorize (browser redirect)", url.replace(state, maskSecret(state)), true, {
      labelKey: "authorize",
    }),
  ];
  await db().demoSession.create({
    data: {
      browserHash: demoHash("browser", browserId),
      stateHash: demoHash("state", state),
      codeVerifierEnc: sealForStorage(verifier),
      csrfSecret: randomBytes(32).toString("base64url"),
      steps: toJson(steps),
      expiresAt: new Date(now.getTime() + PENDING_LIFETIME_MS),
    },
  });
  const cookie = serializeCookie(demoCookieName(), browserId, {
    maxAgeSeconds: COOKIE_MAX_AGE_SECONDS,
    https: isHttps(),
    sameSite: "Lax",
  });
  // A new connection replaces whatever keys an earlier one left in this browser.
  return redirect(url, cookie, clearKeysCookie(isHttps()));
}

function describeRelay(fields: RelayFields): string {
  const shown: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (!value) continue;
    const masked = name === "privateKey" || name === "code" ? maskSecret(value) : value;
    shown.push(`${name} = ${name === "state" ? maskSecret(value) : masked}`);
  }
  return shown.join("; ");
}

/**
 * POST /demo/callback: the form_post relay. It carries no usable cookie, so
 * the pending session is found by the keyed hash of `state`, claimed once
 * (pending → processing), checked as /docs/relay describes and finished.
 */
export async function handleDemoCallback(request: Request): Promise<Response> {
  if (!isDemoEnabled()) return demoNotFound();
  const fields = readRelayFields(await readForm(request));
  const stateHash = demoHash("state", fields.state);
  const session = fields.state ? await db().demoSession.findUnique({ where: { stateHash } }) : null;
  if (!session || session.expiresAt <= new Date()) return redirect("/demo?notice=unknown_state");
  const claimed = await db().demoSession.updateMany({
    where: { id: session.id, status: "pending" },
    data: { status: "processing" },
  });
  if (claimed.count !== 1) return redirect("/demo?notice=unknown_state");

  const steps = parseSteps(session.steps);
  steps.push(
    step("POST /demo/callback (form_post relay received)", describeRelay(fields), true, {
      labelKey: "relay",
    }),
  );
  const finished = await finishCallback(session, fields, steps).catch(
    (error: unknown): CallbackResult => {
      const message = error instanceof Error ? error.message : String(error);
      steps.push(step("callback failed", message, false, { labelKey: "callbackFailed" }));
      return { status: "failed" };
    },
  );
  // The verifier has served its one use; the keys go to the browser, not to this row.
  await db().demoSession.update({
    where: { id: session.id },
    data: {
      status: finished.status,
      steps: toJson(steps),
      codeVerifierEnc: null,
      ...(finished.status === "connected"
        ? { expiresAt: new Date(Date.now() + CONNECTED_LIFETIME_MS) }
        : {}),
    },
  });
  if (finished.credentials) {
    return redirect(
      "/demo",
      keysCookie(sealCredentials(session.id, finished.credentials), isHttps()),
    );
  }
  return redirect("/demo");
}

interface CallbackResult {
  status: DemoStatus;
  credentials?: DemoCredentials;
}

async function finishCallback(
  session: DemoSessionRow,
  fields: RelayFields,
  steps: DemoStep[],
): Promise<CallbackResult> {
  const discovery = await discover();
  steps.push(discovery.step);
  const issuer = discovery.body?.issuer;
  // The document's issuer must be the one we asked, exactly (RFC 8414; /docs).
  if (typeof issuer !== "string" || trimSlashes(issuer) !== trimSlashes(getEnv().issuer)) {
    steps.push(
      step("Discovery issuer check", "the document names another issuer", false, {
        labelKey: "issuerCheck",
        detailKey: "otherIssuer",
      }),
    );
    return { status: "failed" };
  }
  const outcome = parseRelay(fields, {
    stateMatches: (state) => constantTimeEquals(session.stateHash, demoHash("state", state)),
    issuer,
    partnerPrivateKey: getEnv().demoPartnerPrivateKey,
  });
  if (outcome.kind === "state_mismatch") {
    steps.push(
      step("state check (constant time)", "state does not match", false, {
        labelKey: "stateCheck",
        detailKey: "stateMismatch",
      }),
    );
    return { status: "failed" };
  }
  steps.push(
    step("state check (constant time)", "state matches the one this browser started", true, {
      labelKey: "stateCheck",
      detailKey: "stateMatch",
    }),
  );
  if (outcome.kind === "issuer_mismatch") {
    steps.push(step("iss check (RFC 9207)", `iss ≠ ${issuer}`, false));
    return { status: "failed" };
  }
  steps.push(
    step("iss check (RFC 9207)", `iss = ${issuer}, as discovered`, true, {
      detailKey: "issMatch",
      values: { issuer },
    }),
  );
  if (outcome.kind === "access_denied") {
    steps.push(
      outcome.description
        ? step("error = access_denied", outcome.description, false)
        : step("error = access_denied", "the user cancelled", false, {
            detailKey: "userCancelled",
          }),
    );
    return { status: "denied" };
  }
  if (outcome.kind !== "success") {
    const detail = outcome.kind === "oauth_error" ? `${outcome.error}: ${outcome.description}` : "";
    steps.push(
      step(`relay refused: ${outcome.kind}`, detail, false, {
        labelKey: "relayRefused",
        values: { kind: outcome.kind },
      }),
    );
    return { status: "failed" };
  }
  if (!session.codeVerifierEnc) return { status: "failed" };
  const token = await exchangeCode(outcome.code, openFromStorage(session.codeVerifierEnc));
  steps.push(token.step);
  const apiKey = token.body?.access_token ?? token.body?.apiKey;
  if (!apiKey) return { status: "failed" };
  const minutes = KEYS_COOKIE_LIFETIME_SECONDS / 60;
  steps.push(
    step(
      "Key and private key handed to this browser only",
      `X-Api-Key = ${maskSecret(apiKey)}; privateKey = ${maskSecret(outcome.privateKey)} (${
        fields.privateKey
          ? "user-key mode: data is sealed to the user's key"
          : "partner-key mode: data is sealed to the partner's configured key"
      }); both go into an encrypted cookie for /demo (${minutes} minutes), never into the partner's database`,
      true,
      {
        labelKey: "handedOver",
        detailKey: fields.privateKey ? "handedOverUserKey" : "handedOverPartnerKey",
        values: {
          // Named so that no stored row has a field called like a key: the values are masked.
          shownApiKey: maskSecret(apiKey),
          shownPrivateKey: maskSecret(outcome.privateKey),
          path: KEYS_COOKIE_PATH,
          minutes,
        },
      },
    ),
  );
  // In partner-key mode the private key is the partner's own, read from its settings on each use.
  return {
    status: "connected",
    credentials: { apiKey, privateKey: fields.privateKey || null },
  };
}

/** What the demo needs to read data: the API key and the key that opens the envelopes. */
export interface UsableCredentials {
  apiKey: string;
  privateKey: string;
}

/**
 * A connected session's credentials, from the browser's keys cookie: null
 * when the cookie is missing, altered, expired, sealed by another process or
 * for another session.
 */
export function credentialsOf(
  session: DemoSessionRow,
  keysCookieValue: string | null | undefined,
): UsableCredentials | null {
  if (session.status !== "connected") return null;
  const credentials = openCredentials(keysCookieValue, session.id);
  const privateKey = credentials?.privateKey ?? getEnv().demoPartnerPrivateKey;
  return credentials && privateKey ? { apiKey: credentials.apiKey, privateKey } : null;
}

/** The keys cookie's value in a request to the demo. */
export const readKeysCookie = (request: Request) => readCookie(request, keysCookieName(isHttps()));

/** The keys cookie's name, for the page, which reads cookies through Next. */
export const demoKeysCookieName = () => keysCookieName(isHttps());

/** The same-origin, CSRF-checked session a sync or revoke form acts on. */
async function formSession(
  request: Request,
  action: "sync" | "revoke",
): Promise<DemoSessionRow | Response> {
  if (!isDemoEnabled()) return demoNotFound();
  if (!isSameOrigin(request)) return plain(403, "Forbidden");
  const session = await findBrowserSession(readCookie(request, demoCookieName()));
  const form = await readForm(request);
  if (!session || !constantTimeEquals(sessionCsrfToken(session, action), form.get("csrf") ?? "")) {
    return plain(403, "Forbidden");
  }
  return session;
}

/**
 * POST /demo/sync (/docs/sync): decrypt each account's uid with the
 * relayed key and post them; accounts that need a reconnect are not sent.
 */
export async function handleDemoSync(request: Request): Promise<Response> {
  const session = await formSession(request, "sync");
  if (session instanceof Response) return session;
  const credentials = credentialsOf(session, readKeysCookie(request));
  if (!credentials) return redirect("/demo");
  const steps = parseSteps(session.steps);
  const accounts = await getAccounts(credentials.apiKey);
  steps.push(accounts.step);
  if (accounts.status === 401) {
    await endConnection(session, steps, { refused: accounts });
    return redirect("/demo", clearKeysCookie(isHttps()));
  }
  let result: SyncResult | null = null;
  if (accounts.body) {
    const failures: NonNullable<SyncResult["failures"]> = [];
    const items: { accountId: string; uid: string }[] = [];
    try {
      for (const account of accounts.body) {
        const uid = account.needsReconnect
          ? null
          : openOptional<{ uid?: string }>(credentials.privateKey, account.uidEnc)?.uid;
        if (uid) items.push({ accountId: account.id, uid });
        else
          failures.push({ accountId: account.id, reason: "reconnect_needed", bankErrorCode: null });
      }
    } catch (error) {
      await endConnection(session, steps, { unreadable: error });
      return redirect("/demo", clearKeysCookie(isHttps()));
    }
    steps.push(
      step("uidEnc opened with the relayed key", `${items.length} uid(s) to post`, true, {
        labelKey: "uidsOpened",
        detailKey: "uidsToPost",
        values: { count: items.length },
      }),
    );
    if (items.length > 0) {
      const synced = await syncAll(credentials.apiKey, items);
      steps.push(synced.step);
      if (synced.status === 401) {
        await endConnection(session, steps, { refused: synced });
        return redirect("/demo", clearKeysCookie(isHttps()));
      }
      if (synced.body) {
        result = {
          accounts: synced.body.accounts,
          newTransactions: synced.body.newTransactions,
          failures: [...(synced.body.failures ?? []), ...failures],
        };
      }
    } else {
      result = { accounts: 0, newTransactions: 0, failures };
    }
  }
  await db().demoSession.update({
    where: { id: session.id },
    data: { steps: toJson(steps), ...(result ? { lastSync: toJson(result) } : {}) },
  });
  // The result is shown at the top of the page, where the reload lands.
  return redirect(result ? "/demo?notice=synced" : "/demo");
}

/** Why a connection ended: the service refused its key, or the relayed key no longer opens the data. */
export type ConnectionEnd = { refused: Called<unknown> } | { unreadable: unknown };

/**
 * Marks a connected session as ended and logs why: a partner that is told
 * its key is dead (401 invalid_token) or finds the data sealed to a key it
 * does not hold stops using what it kept, and asks the person to connect
 * again. The keys cookie is deleted by the caller's answer (or by
 * GET /demo/forget, for the page).
 */
export async function endConnection(
  session: DemoSessionRow,
  steps: DemoStep[],
  end: ConnectionEnd,
): Promise<"ended" | "unreadable"> {
  if ("refused" in end) {
    const error = end.refused.error?.code ?? "invalid_token";
    const description = end.refused.error?.description ?? "";
    steps.push(
      step(
        "Access ended: the service refuses this key",
        `${end.refused.status} ${error}${description ? ` (${description})` : ""}; the keys are forgotten: the cookie is deleted`,
        false,
        {
          labelKey: "accessEnded",
          detailKey: "accessEndedDetail",
          values: { status: end.refused.status, error, description: description || "-" },
        },
      ),
    );
  } else {
    const message =
      end.unreadable instanceof Error ? end.unreadable.message : String(end.unreadable);
    steps.push(
      step(
        "The data does not open with the relayed private key",
        `${message}; it is sealed to another key; the keys are forgotten: the cookie is deleted`,
        false,
        { labelKey: "unreadable", detailKey: "unreadableDetail", values: { message } },
      ),
    );
  }
  const status = "refused" in end ? "ended" : "unreadable";
  // Conditional: a revoke or another tab that got there first keeps its own outcome.
  await db().demoSession.updateMany({
    where: { id: session.id, status: "connected" },
    data: { status, steps: toJson(steps) },
  });
  return status;
}

/**
 * GET /demo/forget: deletes a keys cookie that no longer serves (its
 * connection ended, or it expired or belongs to another session), then back
 * to /demo (the page cannot delete a cookie while it renders). It keeps a
 * cookie that still opens for a connected session, so a link from anywhere
 * changes nothing that works.
 */
export async function handleDemoForget(request: Request): Promise<Response> {
  if (!isDemoEnabled()) return demoNotFound();
  const session = await findBrowserSession(readCookie(request, demoCookieName()));
  if (session && credentialsOf(session, readKeysCookie(request))) return redirect("/demo");
  return redirect("/demo", clearKeysCookie(isHttps()));
}

/** POST /demo/revoke (RFC 7009), then proof: the key now answers 401; the keys cookie is deleted. */
export async function handleDemoRevoke(request: Request): Promise<Response> {
  const session = await formSession(request, "revoke");
  if (session instanceof Response) return session;
  const credentials = credentialsOf(session, readKeysCookie(request));
  if (!credentials) return redirect("/demo", clearKeysCookie(isHttps()));
  const steps = parseSteps(session.steps);
  const revoked = await revokeKey(credentials.apiKey);
  steps.push(revoked.step);
  const revokedOk = revoked.status >= 200 && revoked.status < 300;
  if (revokedOk) {
    const check = await getAccounts(credentials.apiKey);
    steps.push({ ...check.step, ok: check.status === 401 });
  }
  await db().demoSession.update({
    where: { id: session.id },
    data: { steps: toJson(steps), ...(revokedOk ? { status: "revoked" } : {}) },
  });
  // A revoked key is worth nothing, and the browser forgets it and the private key at once.
  return revokedOk ? redirect("/demo", clearKeysCookie(isHttps())) : redirect("/demo");
}
