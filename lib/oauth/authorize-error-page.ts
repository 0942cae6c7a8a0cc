import { createHash } from "node:crypto";
import { escapeHtml } from "../http/html";
import { negotiateLocale } from "../i18n/locales";
import { authorizeErrorTranslator } from "../i18n/translate";
import { toErrorBody, type OAuthError } from "./errors";
import { oauthJson, withRetryAfter } from "./responses";

/**
 * The answer to an authorization request whose client or redirect URI is not
 * verified (docs/architecture.md#no-redirect-before-verification): nothing is
 * sent anywhere. A program gets the `{error, error_description}` JSON; a
 * person's browser (Accept: text/html) gets a page in their language that
 * says what happened and what to do, with the same status and the technical
 * reason for the app's developer. The page is self-contained: its only
 * style is inline and allowed by hash, it runs no script and loads nothing.
 */

const SERVICE_NAME = "Bank Connect";

const STYLE =
  ":root{color-scheme:light dark;--ink:#14171f;--muted:#545b6b;--surface:#fff;--canvas:#eef1f6;--border:#d9dee8;" +
  "--accent:#1f5eff;--error-bg:#fdecea;--error-line:#b3261e;--error-ink:#5f1410}" +
  "@media (prefers-color-scheme:dark){:root{--ink:#e8eaf0;--muted:#a9b0bf;--surface:#171a21;--canvas:#0e1015;" +
  "--border:#2e3441;--error-bg:#3a1513;--error-line:#f28b82;--error-ink:#ffd9d5}}" +
  "*{box-sizing:border-box}" +
  "body{margin:0;font:1rem/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;" +
  "color:var(--ink);background:var(--canvas)}" +
  ".page{max-width:28rem;margin:0 auto;padding:2rem 1rem 3rem;display:grid;gap:1rem}" +
  "header{display:flex;align-items:center;gap:.75rem;font-weight:700;font-size:1.125rem}" +
  ".mark{display:inline-grid;place-items:center;width:2.25rem;height:2.25rem;border-radius:6px;" +
  "background:var(--accent);color:#fff;font-weight:800}" +
  "main{background:var(--surface);border:1px solid var(--border);border-radius:16px;padding:2rem;" +
  "box-shadow:0 1px 2px rgb(16 24 40/6%),0 8px 24px rgb(16 24 40/8%);overflow-wrap:anywhere}" +
  "h1{font-size:1.625rem;line-height:1.25;margin:0 0 1rem}p{margin:0 0 1rem}" +
  ".alert{border-left:4px solid var(--error-line);background:var(--error-bg);color:var(--error-ink);" +
  "padding:.75rem 1rem;border-radius:6px}" +
  ".detail{margin:0;color:var(--muted);font-size:.875rem}" +
  "code{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace;font-size:.8125rem}" +
  "footer{color:var(--muted);font-size:.875rem}" +
  "@media (max-width:30rem){.page{padding:1rem 0 2rem}header,footer{padding:0 1rem}" +
  "main{border-radius:0;border-left:0;border-right:0;padding:1.5rem 1rem}}";

const sha256Source = (source: string) =>
  `'sha256-${createHash("sha256").update(source, "utf8").digest("base64")}'`;

/** Nothing may load or run; only the page's own style. */
export const AUTHORIZE_ERROR_CSP = [
  "default-src 'none'",
  `style-src ${sha256Source(STYLE)}`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** A browser navigating here asks for HTML; a program (curl, an SDK) does not. */
export function asksForHtml(request: Request): boolean {
  const accept = request.headers.get("accept") ?? "";
  return accept.split(",").some((range) => {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const refused = params.some((param) => /^q=0(\.0{0,3})?$/.test(param));
    return (type === "text/html" || type === "application/xhtml+xml") && !refused;
  });
}

/** Which explanation fits the refusal. */
function reasonOf(
  error: OAuthError,
): "unknownClient" | "redirectUri" | "unavailable" | "malformed" {
  if (error.status >= 500) return "unavailable";
  if (error.description === "unknown client_id") return "unknownClient";
  if (error.description.includes("redirect_uri")) return "redirectUri";
  return "malformed";
}

async function renderPage(request: Request, error: OAuthError): Promise<string> {
  const params = new URL(request.url).searchParams;
  const locale = negotiateLocale({
    uiLocales: params.get("ui_locales"),
    acceptLanguage: request.headers.get("accept-language"),
  });
  const t = await authorizeErrorTranslator(locale);
  const reason = reasonOf(error);
  const body = toErrorBody(error);
  return (
    `<!doctype html><html lang="${escapeHtml(locale)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">` +
    `<title>${escapeHtml(t("title"))} · ${SERVICE_NAME}</title><style>${STYLE}</style></head>` +
    `<body><div class="page"><header><span class="mark" aria-hidden="true">B</span>` +
    `<span>${SERVICE_NAME}</span></header><main id="main">` +
    `<h1>${escapeHtml(t(reason === "unavailable" ? "unavailableTitle" : "title"))}</h1>` +
    `<p class="alert" role="alert">${escapeHtml(t(reason, { service: SERVICE_NAME }))}</p>` +
    `<p>${escapeHtml(t(reason === "unavailable" ? "tryAgainLater" : "whatToDo"))}</p>` +
    `<p class="detail">${escapeHtml(t("forDevelopers"))} ` +
    `<code>${escapeHtml(`${body.error}: ${body.error_description}`)}</code></p>` +
    `</main><footer>${escapeHtml(t("securedBy", { service: SERVICE_NAME }))}</footer></div></body></html>`
  );
}

/** The refusal of an unverified authorization request, with `status`: a page or JSON. */
export async function unverifiedAuthorizeResponse(
  request: Request,
  error: OAuthError,
  status: number,
): Promise<Response> {
  if (!asksForHtml(request)) return withRetryAfter(oauthJson(toErrorBody(error), status), error);
  const response = new Response(await renderPage(request, error), {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": AUTHORIZE_ERROR_CSP,
      "Cache-Control": "no-store",
      Pragma: "no-cache",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
    },
  });
  return withRetryAfter(response, error);
}
