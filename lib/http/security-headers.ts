/**
 * Baseline security headers (DESIGN.md §6.9, §8), applied by proxy.ts. Pages
 * get a strict CSP with a per-request nonce; JSON responses carry API_CSP,
 * which allows nothing at all; the relay page sets its own (its script hash).
 */

export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

export function pageCsp(nonce: string, options: { development: boolean }): string {
  const directives = [
    "default-src 'self'",
    // 'strict-dynamic' lets the nonced framework scripts load their chunks.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    // In development the bundler injects styles at run time; production uses files and nonced tags.
    options.development ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  return directives.join("; ");
}

/** For responses that are not pages: nothing may load, nothing may frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

export function baselineHeaders(options: { https: boolean }): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
  };
  if (options.https) {
    headers["Strict-Transport-Security"] = "max-age=63072000; includeSubDomains";
  }
  return headers;
}
