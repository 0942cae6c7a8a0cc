import { db } from "../db/client";
import { getEnv } from "../env";
import { canNameClient } from "../keys/client-credentials";
import { fromUiLocales, negotiateLocale } from "../i18n/locales";
import { relayLabels } from "../i18n/translate";
import { log } from "../log";
import { OAuthError, toOAuthError } from "./errors";
import { SCOPE } from "./metadata";
import { asciiName, findDuplicate, optionalParam } from "./params";
import { isWellFormedS256Challenge } from "./pkce";
import { unverifiedAuthorizeResponse } from "./authorize-error-page";
import { errorFields, relayResponse } from "./relay";

/**
 * GET /oauth/authorize (/docs/flow, /docs/errors). Client and exact redirect
 * URI are checked first and answer 400 (JSON, or a page for a person's
 * browser), never sending anything to an unverified address (docs/architecture.md#no-redirect-before-verification). Every later rule answers with the
 * form_post error relay to the verified redirect URI.
 */

/** The SDKs pin these descriptions as literal strings (/docs/relay). */
export const PARTNER_KEY_MISSING =
  "this partner has not installed its decryption key; no authorizations can be started until it does";
export const PARTNER_SUSPENDED = "this partner is suspended; no authorizations can be started";

const MAX_STATE_LENGTH = 2048;
const MAX_LOGIN_HINT_LENGTH = 320;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type AuthorizeClient = NonNullable<Awaited<ReturnType<typeof findAuthorizeClient>>>;

function findAuthorizeClient(clientId: string) {
  return db().client.findUnique({
    where: { id: clientId },
    select: {
      id: true,
      redirectUris: true,
      partner: {
        select: { id: true, status: true, recipientPublicKey: true, defaultLanguage: true },
      },
    },
  });
}

/** Thrown before the redirect URI is verified: answered as 400 JSON. */
class UnverifiedRequestError extends OAuthError {}

function singleUnverified(params: URLSearchParams, name: string): string {
  if (params.getAll(name).length > 1) {
    throw new UnverifiedRequestError(
      "invalid_request",
      `parameter ${name} was given more than once`,
    );
  }
  const value = optionalParam(params, name);
  if (value === null) throw new UnverifiedRequestError("invalid_request", `${name} is required`);
  return value;
}

async function assertClient(params: URLSearchParams): Promise<AuthorizeClient> {
  const clientId = singleUnverified(params, "client_id");
  const client = canNameClient(clientId) ? await findAuthorizeClient(clientId) : null;
  if (!client) throw new UnverifiedRequestError("invalid_request", "unknown client_id");
  return client;
}

/** Matched exactly, character for character (docs/protocol.md#redirect-uris). */
function assertRedirectUri(params: URLSearchParams, client: AuthorizeClient): string {
  const redirectUri = singleUnverified(params, "redirect_uri");
  if (!client.redirectUris.includes(redirectUri)) {
    throw new UnverifiedRequestError(
      "invalid_request",
      "redirect_uri is not registered for this client",
    );
  }
  return redirectUri;
}

/** Nothing stored from the request (state, login hint, locales) may hold a NUL. */
function assertNoNulCharacters(params: URLSearchParams): void {
  for (const [name, value] of params) {
    if (value.includes("\u0000")) {
      throw new OAuthError(
        "invalid_request",
        `parameter ${asciiName(name)} contains a NUL character`,
      );
    }
  }
}

function assertNoDuplicateParams(params: URLSearchParams): void {
  const duplicate = findDuplicate(params);
  if (duplicate)
    throw new OAuthError(
      "invalid_request",
      `parameter ${asciiName(duplicate)} was given more than once`,
    );
}

/** Required for obc_ clients; older ids default to code (/docs/flow). */
function checkResponseType(params: URLSearchParams, clientId: string): void {
  const responseType = optionalParam(params, "response_type");
  if (responseType === null) {
    if (clientId.startsWith("obc_"))
      throw new OAuthError("invalid_request", "response_type is required");
    return;
  }
  if (responseType !== "code")
    throw new OAuthError("unsupported_response_type", "only response_type=code is supported");
}

/** Only form_post, which is also the default (/docs/flow). */
function checkResponseMode(params: URLSearchParams): void {
  const responseMode = optionalParam(params, "response_mode") ?? "form_post";
  if (responseMode !== "form_post")
    throw new OAuthError("invalid_request", "only response_mode=form_post is supported");
}

/** PKCE with S256 is mandatory (RFC 7636). */
function checkCodeChallenge(params: URLSearchParams): string {
  const challenge = optionalParam(params, "code_challenge");
  if (challenge === null) throw new OAuthError("invalid_request", "code_challenge is required");
  const method = optionalParam(params, "code_challenge_method") ?? "S256";
  if (method !== "S256")
    throw new OAuthError("invalid_request", "only code_challenge_method=S256 is supported");
  if (!isWellFormedS256Challenge(challenge)) {
    throw new OAuthError(
      "invalid_request",
      "code_challenge must be 43 characters of base64url (S256)",
    );
  }
  return challenge;
}

function checkScope(params: URLSearchParams): string {
  const scope = optionalParam(params, "scope");
  if (scope === null) return SCOPE;
  const requested = scope.split(" ").filter(Boolean);
  if (requested.length === 0 || requested.some((s) => s !== SCOPE)) {
    throw new OAuthError("invalid_scope", "the only supported scope is accounts.read");
  }
  return SCOPE;
}

function checkState(params: URLSearchParams): string | null {
  const state = optionalParam(params, "state");
  if (state !== null && state.length > MAX_STATE_LENGTH)
    throw new OAuthError("invalid_request", "state is too long");
  return state;
}

function checkRenewConnection(params: URLSearchParams): string | null {
  const id = optionalParam(params, "renew_connection");
  if (id !== null && !UUID.test(id))
    throw new OAuthError("invalid_request", "renew_connection must be a connection id");
  return id;
}

/** Refused partners answer temporarily_unavailable (/docs/relay). */
function checkPartnerAvailable(client: AuthorizeClient): void {
  const partner = client.partner;
  if (!partner) return;
  if (partner.status === "suspended")
    throw new OAuthError("temporarily_unavailable", PARTNER_SUSPENDED);
  if (getEnv().recipientKeyRequired && !partner.recipientPublicKey) {
    throw new OAuthError("temporarily_unavailable", PARTNER_KEY_MISSING);
  }
}

/** A checked authorization request: what the flow that serves it is made of. */
export interface Authorization {
  client: AuthorizeClient;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  state: string | null;
  renewConnectionId: string | null;
  /** The ui_locales the partner asked for, as the flow keeps it. */
  locale: string | null;
  loginHint: string | null;
  challenge: "pin_code" | null;
}

export type AuthorizeCheck =
  | { ok: false; response: Response }
  | {
      ok: true;
      authorization: Authorization;
      /** The error relay to the verified redirect URI, for a failure after the checks. */
      refuse: (error: unknown) => Promise<Response>;
    };

/**
 * The rules of an authorization request in their order. A request whose
 * client or redirect URI is not verified gets its 400 (or outage) JSON here;
 * any later refusal is the error relay to the verified redirect URI.
 * Starting the flow that serves a valid request is lib/flow/start.ts.
 */
export async function checkAuthorizeRequest(request: Request): Promise<AuthorizeCheck> {
  const params = new URL(request.url).searchParams;

  let client: AuthorizeClient;
  let redirectUri: string;
  try {
    client = await assertClient(params);
    redirectUri = assertRedirectUri(params, client);
  } catch (error) {
    // Before the client and redirect URI are known good nothing is relayed:
    // bad input is a 400, an outage its own status (503 with Retry-After).
    const oauthError = toOAuthError(error);
    if (oauthError.code === "server_error")
      log.error("authorize.server_error", { error: oauthError.cause });
    const status = oauthError.status >= 500 ? oauthError.status : 400;
    return { ok: false, response: await unverifiedAuthorizeResponse(request, oauthError, status) };
  }

  const refuse = async (error: unknown): Promise<Response> => {
    const oauthError = toOAuthError(error);
    if (oauthError.code === "server_error")
      log.error("authorize.server_error", { error: oauthError.cause });
    const locale = negotiateLocale({
      uiLocales: params.get("ui_locales"),
      partnerDefault: client.partner?.defaultLanguage,
      acceptLanguage: request.headers.get("accept-language"),
    });
    return relayResponse(
      redirectUri,
      errorFields({
        error: oauthError.code,
        description: oauthError.description,
        iss: getEnv().issuer,
        state: params.get("state"),
      }),
      await relayLabels(locale),
    );
  };

  try {
    assertNoDuplicateParams(params);
    assertNoNulCharacters(params);
    checkResponseType(params, client.id);
    checkResponseMode(params);
    const codeChallenge = checkCodeChallenge(params);
    const scope = checkScope(params);
    const state = checkState(params);
    const renewConnectionId = checkRenewConnection(params);
    checkPartnerAvailable(client);
    const loginHint = optionalParam(params, "login_hint");
    return {
      ok: true,
      refuse,
      authorization: {
        client,
        redirectUri,
        codeChallenge,
        scope,
        state,
        renewConnectionId,
        locale: fromUiLocales(params.get("ui_locales")),
        loginHint: loginHint && loginHint.length <= MAX_LOGIN_HINT_LENGTH ? loginHint : null,
        // Any other challenge value is ignored (/docs/flow).
        challenge: optionalParam(params, "challenge") === "pin_code" ? "pin_code" : null,
      },
    };
  } catch (error) {
    return { ok: false, response: await refuse(error) };
  }
}
