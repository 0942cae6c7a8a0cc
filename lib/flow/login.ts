import {
  confirmLoginLink,
  loginNonceCookie,
  loginNonceCookieName,
  newBrowserNonce,
  requestLoginChallenge,
  verifyLoginPin,
} from "../auth/login-challenges";
import { replaceBrowserSession } from "../auth/sessions";
import { getEnv } from "../env";
import { clientIpOf } from "../http/client-ip";
import { readCookie } from "../http/cookies";
import { toSafeReturnPath } from "../http/return-url";
import { toScreenBranding } from "../partners/branding";
import { guardFlowPost, type FlowPostRule } from "./guard";
import { flowLocale } from "./locale";
import { MailError } from "../mail";

/**
 * The sign-in forms (docs/protocol.md#sign-in). Plain HTML form posts, so
 * they work without JavaScript; each answers with a redirect back to /login
 * carrying what the page should say, or, signed in, to the return URL.
 */

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ Location: location, "Cache-Control": "no-store" });
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/** Longer values are not echoed: a redirect's Location must stay far below header limits. */
const MAX_ECHOED_LENGTH = 2048;

function loginPage(params: Record<string, string | number | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    const text = value === null || value === undefined ? "" : String(value);
    if (text !== "" && text.length <= MAX_ECHOED_LENGTH) query.set(name, text);
  }
  return `/login?${query}`;
}

/**
 * The sign-in forms work with or without a flow. Inside one they also carry
 * the flow's token (login CSRF); a form from a tab whose flow is over or was
 * replaced is sent on, not refused.
 */
export const SIGN_IN_FORM = {
  body: "form",
  errors: "empty",
  flow: "optional",
  user: "ignored",
  token: "login",
} as const satisfies FlowPostRule;

/** The link's confirmation needs no flow: the link's token and the asking browser are its proof. */
const LINK_CONFIRM_FORM = {
  body: "form",
  errors: "empty",
  flow: "ignored",
  user: "ignored",
  token: null,
} as const satisfies FlowPostRule;

async function readForm(request: Request) {
  const post = await guardFlowPost(request, SIGN_IN_FORM);
  if (post instanceof Response) return post;
  const { flow } = post;
  const { form } = post.body;
  const returnUrl = toSafeReturnPath(form.get("returnUrl"), getEnv().issuer);
  // A re-confirmation keeps saying so (and keeps its signed-in person on the
  // sign-in page) until the new mail's code or link is used.
  // "1": before approving (a flow's); "change": before an irreversible change.
  const asked = form.get("reconfirm");
  const reconfirm = asked === "change" || (flow && asked === "1") ? asked : null;
  return { flow, form, returnUrl, reconfirm };
}

export async function handleLoginRequest(request: Request): Promise<Response> {
  const read = await readForm(request);
  if (read instanceof Response) return read;
  const { flow, form, returnUrl, reconfirm } = read;
  const email = (form.get("email") ?? "").trim();
  const existingNonce = readCookie(request, loginNonceCookieName());
  const browserNonce = existingNonce ?? newBrowserNonce();
  const cookies = existingNonce ? [] : [loginNonceCookie(browserNonce)];
  const partnerName = flow ? toScreenBranding(flow.client.partner, flow.client.name).name : null;

  const result = await requestLoginChallenge({
    email,
    locale: flowLocale({
      flow,
      userChoice: null,
      acceptLanguage: request.headers.get("accept-language"),
    }),
    partnerName,
    flowId: flow?.id ?? null,
    returnUrl,
    browserNonce,
    clientIp: clientIpOf(request),
  }).catch((error: unknown) => {
    // The mail provider refused or could not be reached: the page says so and
    // keeps the address for another try (docs/sign-in-limits.md#a-mail-that-was-not-sent).
    if (error instanceof MailError) return { status: "mail_failed" } as const;
    throw error;
  });
  if (result.status === "mail_failed") {
    return redirect(loginPage({ returnUrl, email, reconfirm, error: "mail_failed" }), cookies);
  }
  if (result.status === "invalid_email") {
    return redirect(loginPage({ returnUrl, email, reconfirm, error: "invalid_email" }), cookies);
  }
  if (result.status === "throttled") {
    return redirect(
      loginPage({
        returnUrl,
        email,
        reconfirm,
        sent: 1,
        error: "throttled",
        retry: result.retryAfterSeconds,
      }),
      cookies,
    );
  }
  return redirect(loginPage({ returnUrl, email, reconfirm, sent: 1 }), cookies);
}

/**
 * The code as people paste or type it: "710 617", "710-617", full-width
 * digits from a phone keyboard. Separators are dropped; what is left must be
 * six digits.
 */
export function normalizeLoginCode(value: string): string {
  return value.normalize("NFKC").replace(/[\s\-\u2010-\u2015\u2212.·_]/g, "");
}

export async function handleLoginCode(request: Request): Promise<Response> {
  const read = await readForm(request);
  if (read instanceof Response) return read;
  const { form, returnUrl, reconfirm } = read;
  const email = (form.get("email") ?? "").trim();
  const code = normalizeLoginCode(form.get("code") ?? "");
  const back = (error: string, extra: Record<string, number> = {}) =>
    redirect(loginPage({ returnUrl, email, reconfirm, sent: 1, error, ...extra }));
  if (!/^\d{6}$/.test(code)) return back("code_format");
  const browserNonce = readCookie(request, loginNonceCookieName());
  if (!browserNonce) return back("expired");

  const result = await verifyLoginPin({
    email,
    pin: code,
    browserNonce,
    clientIp: clientIpOf(request),
  });
  if (result.status === "wrong") return back("wrong", { left: result.attemptsLeft });
  // Codes are paused (for the address or the client address): the page says
  // for how long and that the link in the mail still signs in.
  if (result.status === "pin_closed" || result.status === "too_many_failures") {
    return back(result.status, { retry: result.retryAfterSeconds });
  }
  if (result.status !== "ok") return back(result.status);
  return signedIn(
    request,
    result.userId,
    returnUrl ?? toSafeReturnPath(result.returnUrl, getEnv().issuer),
  );
}

export async function handleLinkConfirm(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, LINK_CONFIRM_FORM);
  if (post instanceof Response) return post;
  const { form } = post.body;
  const token = form.get("token") ?? "";
  const result = await confirmLoginLink({
    token,
    browserNonce: readCookie(request, loginNonceCookieName()),
    clientIp: clientIpOf(request),
  });
  if (result.status !== "ok") {
    const echoed = token.length <= MAX_ECHOED_LENGTH ? token : "";
    return redirect(`/login/link?${new URLSearchParams({ token: echoed, result: result.status })}`);
  }
  return signedIn(request, result.userId, toSafeReturnPath(result.returnUrl, getEnv().issuer));
}

/** A new session replaces the browser's previous one (revoked, not just overwritten). */
async function signedIn(
  request: Request,
  userId: string,
  returnPath: string | null,
): Promise<Response> {
  return redirect(returnPath ?? "/", [await replaceBrowserSession(request, userId)]);
}
