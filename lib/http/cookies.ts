/**
 * Cookie parsing and serialization on plain Web Request/Response headers.
 * On https every cookie is Secure and takes the `__Host-` prefix (bound to
 * this exact origin, path /, no Domain).
 */

export interface CookieOptions {
  maxAgeSeconds: number;
  https: boolean;
  sameSite?: "Lax" | "Strict";
  /** Default "/"; a narrower path cannot take the `__Host-` prefix. */
  path?: string;
}

export function cookieName(base: string, https: boolean): string {
  return https ? `__Host-${base}` : base;
}

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() !== name) continue;
    const value = part.slice(index + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  return null;
}

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path ?? "/"}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    "HttpOnly",
    `SameSite=${options.sameSite ?? "Lax"}`,
  ];
  if (options.https) parts.push("Secure");
  return parts.join("; ");
}

export function clearCookie(name: string, https: boolean, path = "/"): string {
  return serializeCookie(name, "", { maxAgeSeconds: 0, https, path });
}
