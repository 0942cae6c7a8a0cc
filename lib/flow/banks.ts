import { startBankConsent } from "../banking/consent-start";
import { countFlowFailure } from "../analytics/counters";
import { findSignedInUser } from "../auth/sessions";
import { ensureTenant, tenantSubject } from "../banking/tenants";
import { keyedHashCandidates } from "../crypto/keyed-hash";
import { db, type Prisma } from "../db/client";
import { getEnv } from "../env";
import { OUTAGE_RETRY_AFTER_SECONDS } from "../db/faults";
import { cookieName, serializeCookie } from "../http/cookies";
import { privateJson } from "../http/respond";
import { log } from "../log";
import { upstream } from "../upstream";
import { fromStoredPsuHeaders } from "../upstream/psu-headers";
import type { Aspsp, PsuType } from "../upstream/types";
import { FLOW_ENDED_PATH } from "./dead-ends";
import { findIngestStatus, startIngest } from "./bank-ingest";
import { LAST_COUNTRY_COOKIE } from "./bank-list";
import { findBrowserFlow } from "./flows";
import { guardFlowPost, type FlowPostRule } from "./guard";
import { flowLocale } from "./locale";
import { serverRelay } from "./relay-for-flow";
import { resolveNextStep } from "./steps";

/**
 * The bank picker (/docs/flow): start a consent at the upstream, then
 * take its callback, fetch, seal to the tenant's key and store.
 */

const PSU_TYPES = ["personal", "business"] as const;

const redirect = (location: string) =>
  new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

type BrowserFlow = NonNullable<Awaited<ReturnType<typeof findBrowserFlow>>>;
type SignedIn = NonNullable<Awaited<ReturnType<typeof findSignedInUser>>>;

/** This browser's flow and its signed-in user, or where to send a browser that has neither. */
async function signedInFlow(
  request: Request,
): Promise<{ flow: BrowserFlow; user: SignedIn } | Response> {
  const [flow, user] = await Promise.all([findBrowserFlow(request), findSignedInUser(request)]);
  if (!flow) return redirect(FLOW_ENDED_PATH);
  if (!user || flow.userId !== user.userId) return redirect("/login");
  return { flow, user };
}

/** The flow's tenant, whose keyed hash is the user's stable, opaque id at the bank. */
const subjectOf = (flow: BrowserFlow, user: SignedIn) =>
  tenantSubject(flow.client.partner?.id ?? null, { id: user.userId, email: user.email });

/**
 * The bank picker's forms: the flow's own signed-in browser, with the flow's
 * token. A bank is picked once the key exists (user-key mode), or on the way
 * to or from consent; a key not set up yet sends the browser to key setup.
 */
export const BANK_FORM = {
  body: "form",
  errors: "empty",
  flow: "required",
  user: "flow",
  token: "bank",
  steps: ["banks", "consent", "relay"],
} as const satisfies FlowPostRule;

/** Records the pending authorization and sends the browser to the bank's consent page. */
async function sendToBank(
  request: Request,
  flow: BrowserFlow,
  user: SignedIn,
  bank: { aspsp: Aspsp; psuType: PsuType; renewConnectionId?: string },
): Promise<Response> {
  try {
    const url = await startBankConsent({
      flowId: flow.id,
      aspsp: bank.aspsp,
      psuType: bank.psuType,
      renewConnectionId: bank.renewConnectionId ?? null,
      language: flowLocale({
        flow,
        userChoice: user.locale,
        acceptLanguage: request.headers.get("accept-language"),
      }),
      subject: subjectOf(flow, user),
    });
    return redirect(url);
  } catch (error) {
    log.warn("banks.start_failed", { error });
    await countFlowFailure(flow.id, "bank_unavailable");
    return redirect("/banks?notice=failed");
  }
}

export async function handleBankStart(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, BANK_FORM);
  if (post instanceof Response) return post;
  const { flow, user } = post;
  const { form } = post.body;

  const country = form.get("country") ?? "";
  const name = form.get("bank") ?? "";
  const psuType = PSU_TYPES.find((type) => type === form.get("psuType")) ?? "personal";
  const aspsp = (await upstream().listBanks({ country })).find((bank) => bank.name === name);
  if (!aspsp || !aspsp.psuTypes.includes(psuType)) return redirect("/banks?notice=failed");
  const response = await sendToBank(request, flow, user, { aspsp, psuType });
  // The picker opens on this country next time (a preference, not a secret).
  response.headers.append(
    "Set-Cookie",
    serializeCookie(lastCountryCookieName(), aspsp.country, {
      maxAgeSeconds: LAST_COUNTRY_MAX_AGE_SECONDS,
      https: getEnv().issuer.startsWith("https://"),
    }),
  );
  return response;
}

const LAST_COUNTRY_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/** The cookie remembering the country of the last bank picked in this browser. */
export const lastCountryCookieName = () =>
  cookieName(LAST_COUNTRY_COOKIE, getEnv().issuer.startsWith("https://"));

/**
 * GET /banks/renew (renew_connection, /docs/flow): straight to the bank of
 * the connection the flow renews, for the same kind of customer. Anything
 * else (no renewal, a connection of another tenant) falls back to the picker.
 */
export async function handleBankRenew(request: Request): Promise<Response> {
  const signedIn = await signedInFlow(request);
  if (signedIn instanceof Response) return signedIn;
  const { flow, user } = signedIn;
  const connection = flow.renewConnectionId
    ? await db().connection.findFirst({
        where: { id: flow.renewConnectionId, tenant: { subject: subjectOf(flow, user) } },
      })
    : null;
  if (!connection) return redirect("/banks");
  const aspsp = (await upstream().listBanks({ country: connection.aspspCountry })).find(
    (bank) => bank.name === connection.aspspName,
  );
  const psuType = PSU_TYPES.find((type) => type === connection.psuType) ?? "personal";
  if (!aspsp) return redirect("/banks?notice=failed");
  return sendToBank(request, flow, user, { aspsp, psuType, renewConnectionId: connection.id });
}

/**
 * Claims a bank's return for its authorization, once: "claimed" when this
 * request is the one to complete it. Approving again at the bank (Back to its
 * page) brings a used return once more: "connected" when the bank it
 * connected is there for the tenant, so that is no failure; otherwise, or
 * when another request claimed it first, "failed".
 */
async function claimReturn(
  authorization: { id: string; completedAt: Date | null; aspspName: string; aspspCountry: string },
  tenant: Prisma.TenantWhereInput,
): Promise<"claimed" | "connected" | "failed"> {
  if (authorization.completedAt) {
    const connected = await db().connection.count({
      where: {
        tenant,
        aspspName: authorization.aspspName,
        aspspCountry: authorization.aspspCountry,
      },
    });
    return connected > 0 ? "connected" : "failed";
  }
  const claimed = await db().bankAuthorization.updateMany({
    where: { id: authorization.id, completedAt: null },
    data: { completedAt: new Date() },
  });
  return claimed.count === 1 ? "claimed" : "failed";
}

/**
 * GET /banks/callback: the bank sent the browser back. Checked here (bound to
 * this browser's flow, used once, not stale); the consent is then completed
 * and stored after the response (bank-ingest.ts), and the browser goes to the
 * progress screen at once.
 */
export async function handleBankCallback(request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const state = params.get("state") ?? "";
  const authorization = await db().bankAuthorization.findFirst({
    where: { stateHash: { in: keyedHashCandidates("bank-state", state) } },
  });
  // Started by a person's own key (POST /api/authorizations): no flow and no browser to bind to.
  if (authorization && authorization.flowId === null && authorization.tenantId !== null) {
    return ownKeyCallback({ ...authorization, tenantId: authorization.tenantId }, params);
  }
  const signedIn = await signedInFlow(request);
  if (signedIn instanceof Response) return signedIn;
  const { flow, user } = signedIn;
  // Bound to this browser's flow, used once, not stale.
  if (!authorization || authorization.flowId !== flow.id || authorization.expiresAt <= new Date()) {
    return redirect("/banks?notice=failed");
  }
  const claim = await claimReturn(authorization, { subject: subjectOf(flow, user) });
  if (claim !== "claimed") return redirect(`/banks?notice=${claim}`);
  if (params.get("error")) {
    await countFlowFailure(flow.id, "bank_denied");
    return redirect("/banks?notice=denied");
  }

  const person = await db().user.findUniqueOrThrow({ where: { id: user.userId } });
  const tenant = await db().$transaction((tx) =>
    ensureTenant(tx, { user: person, partner: flow.client.partner }),
  );
  const sealing = await db().tenant.findUniqueOrThrow({ where: { id: tenant.id } });
  if (!sealing.sealingKey) return redirect("/setup");
  // A renewal replaces its own tenant's connection; anything else is a new one.
  const renewing = authorization.renewConnectionId
    ? await db().connection.findFirst({
        where: { id: authorization.renewConnectionId, tenantId: tenant.id },
        select: { id: true },
      })
    : null;
  await startIngest({
    flowId: flow.id,
    authorizationId: authorization.id,
    code: params.get("code") ?? "",
    tenantId: tenant.id,
    sealingKey: sealing.sealingKey,
    renewConnectionId: renewing?.id ?? null,
    requiredPsuHeaders: fromStoredPsuHeaders(authorization.requiredPsuHeaders),
    aspspName: authorization.aspspName,
  });
  return redirect("/banks/progress");
}

/**
 * Where the bank's callback of a renewal started at My access lands
 * (lib/account/renew-consent.ts): My access, saying how it went.
 */
export const renewalDonePath = (result: "connecting" | "denied" | "failed") =>
  `/account?${new URLSearchParams({ renewal: result })}#banks-title`;

/** Where the browser lands after the bank, for a connection a person's own key started. */
export const OWN_KEY_DONE_PATH = "/banks/connected";

interface OwnKeyAuthorization {
  id: string;
  tenantId: string;
  aspspName: string;
  aspspCountry: string;
  expiresAt: Date;
  completedAt: Date | null;
  requiredPsuHeaders: string | null;
  /** Set when the person renews a consent from My access (lib/account/renew-consent.ts). */
  renewConnectionId: string | null;
}

/**
 * The bank's callback for a connection a person's own key started
 * (docs/own-data.md): the program that asked for it waits for it in
 * GET /api/connections. The state, 256 random bits that only the consent
 * address carried, binds the callback to the authorization, which is used
 * once and not after 30 minutes; the connection is stored for the key's
 * tenant with the hosted flow's ingest. The browser gets a page that says
 * how it went and that the program shows the rest.
 */
async function ownKeyCallback(
  authorization: OwnKeyAuthorization,
  params: URLSearchParams,
): Promise<Response> {
  const done = (result: "connecting" | "connected" | "denied" | "failed") =>
    redirect(
      authorization.renewConnectionId
        ? renewalDonePath(result === "connected" ? "connecting" : result)
        : `${OWN_KEY_DONE_PATH}?result=${result}`,
    );
  if (authorization.expiresAt <= new Date()) return done("failed");
  const claim = await claimReturn(authorization, { id: authorization.tenantId });
  if (claim !== "claimed") return done(claim);
  if (params.get("error")) return done("denied");
  const tenant = await db().tenant.findUniqueOrThrow({
    where: { id: authorization.tenantId },
    select: { sealingKey: true },
  });
  if (!tenant.sealingKey) return done("failed");
  // A renewal replaces its own tenant's connection in place.
  const renewing = authorization.renewConnectionId
    ? await db().connection.findFirst({
        where: { id: authorization.renewConnectionId, tenantId: authorization.tenantId },
        select: { id: true },
      })
    : null;
  await startIngest({
    flowId: null,
    authorizationId: authorization.id,
    code: params.get("code") ?? "",
    tenantId: authorization.tenantId,
    sealingKey: tenant.sealingKey,
    renewConnectionId: renewing?.id ?? null,
    requiredPsuHeaders: fromStoredPsuHeaders(authorization.requiredPsuHeaders),
    aspspName: authorization.aspspName,
  });
  return done("connecting");
}

const statusJson = (status: number, body: unknown) => privateJson(body, status);

/** The status poll while the database is unreachable: the script keeps polling. */
export function progressStatusUnavailable(): Response {
  return privateJson({ error: "unavailable" }, 503, {
    "Retry-After": String(OUTAGE_RETRY_AFTER_SECONDS),
  });
}

/**
 * GET /banks/progress/status: what the progress screen's script polls. Only
 * the flow's own browser (its flow cookie and its signed-in user) reads it.
 */
export async function handleBankProgressStatus(request: Request): Promise<Response> {
  const [flow, user] = await Promise.all([findBrowserFlow(request), findSignedInUser(request)]);
  if (!flow || !user || flow.userId !== user.userId) {
    return statusJson(403, { error: "forbidden" });
  }
  const status = await findIngestStatus(flow.id);
  if (!status) return statusJson(404, { error: "not_found" });
  const { state, accountsDone, accountsTotal, historyDone, ready } = status;
  return statusJson(200, { state, accountsDone, accountsTotal, historyDone, ready });
}

/**
 * GET /banks/finish: the progress screen's way on once the accounts are
 * stored: the flow's next step, or (partner-key mode) the relay.
 */
export async function handleBankFinish(request: Request): Promise<Response> {
  const signedIn = await signedInFlow(request);
  if (signedIn instanceof Response) return signedIn;
  const { flow, user } = signedIn;
  const status = await findIngestStatus(flow.id);
  if (!status?.ready) return redirect(status ? "/banks/progress" : "/banks");
  const next = await resolveNextStep(flow, {
    id: user.userId,
    email: user.email,
    publicKey: user.publicKey,
  });
  if (next.step === "relay") return serverRelay(request, flow, user);
  return redirect(next.path);
}

/** "Continue" on the bank picker when a bank is already connected. */
export async function handleBankContinue(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, BANK_FORM);
  if (post instanceof Response) return post;
  const { flow, user } = post;
  const next = await resolveNextStep(flow, {
    id: user.userId,
    email: user.email,
    publicKey: user.publicKey,
  });
  if (next.step === "relay") return serverRelay(request, flow, user);
  return redirect(next.path);
}
