import { createHash } from "node:crypto";
import { escapeHtml } from "../http/html";

/**
 * The form_post relay page (/docs/relay, /docs/flow): an HTML form
 * posted to the partner's redirect URI by a script whose hash is the only one
 * the page's CSP allows. No inline handlers; a <noscript> button for browsers
 * without JavaScript; never cached, never sends a Referer. The CSP has no
 * form-action, so the form may post to any registered redirect URI.
 */

export type RelayField = readonly [name: string, value: string];

export interface RelayLabels {
  lang: string;
  title: string;
  message: string;
  button: string;
}

export const ENGLISH_RELAY_LABELS: RelayLabels = {
  lang: "en",
  title: "Returning to the app",
  message: "Continue to return to the app.",
  button: "Continue",
};

const AUTO_SUBMIT_SCRIPT = 'document.getElementById("relay").submit();';
const STYLE =
  "body{font-family:system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#14171f;background:#f4f6fa}" +
  "main{text-align:center;padding:2rem}button{font:inherit;padding:.75rem 1.5rem;border-radius:12px;border:0;background:#1f5eff;color:#fff;cursor:pointer}";

const sha256Source = (source: string) =>
  `'sha256-${createHash("sha256").update(source, "utf8").digest("base64")}'`;

export const RELAY_CSP = [
  "default-src 'none'",
  `script-src ${sha256Source(AUTO_SUBMIT_SCRIPT)}`,
  `style-src ${sha256Source(STYLE)}`,
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function renderRelayHtml(
  action: string,
  fields: readonly RelayField[],
  labels: RelayLabels = ENGLISH_RELAY_LABELS,
): string {
  const inputs = fields
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join("");
  return (
    `<!doctype html><html lang="${escapeHtml(labels.lang)}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(labels.title)}</title>` +
    `<style>${STYLE}</style></head><body><main>` +
    `<form id="relay" method="post" action="${escapeHtml(action)}">${inputs}` +
    `<noscript><p>${escapeHtml(labels.message)}</p><button type="submit">${escapeHtml(labels.button)}</button></noscript>` +
    `</form></main><script>${AUTO_SUBMIT_SCRIPT}</script></body></html>`
  );
}

export function relayResponse(
  action: string,
  fields: readonly RelayField[],
  labels?: RelayLabels,
): Response {
  return new Response(renderRelayHtml(action, fields, labels), {
    status: 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": RELAY_CSP,
      "Cache-Control": "no-store",
      Pragma: "no-cache",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** Code, state, iss, privateKey, publicKey — in this order (/docs/relay). */
export function successFields(input: {
  code: string;
  state: string | null;
  iss: string;
  privateKey?: string;
  publicKey?: string;
}): RelayField[] {
  return [
    ["code", input.code],
    ["state", input.state ?? ""],
    ["iss", input.iss],
    ["privateKey", input.privateKey ?? ""],
    ["publicKey", input.publicKey ?? ""],
  ];
}

/** Error, error_description, iss and, when supplied, state (/docs/relay). */
export function errorFields(input: {
  error: string;
  description: string;
  iss: string;
  state: string | null;
}): RelayField[] {
  const fields: RelayField[] = [
    ["error", input.error],
    ["error_description", input.description],
    ["iss", input.iss],
  ];
  if (input.state !== null) fields.push(["state", input.state]);
  return fields;
}
