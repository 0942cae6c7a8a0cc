/**
 * Partner logos, stored content-addressed (the row's key is the SHA-256 of
 * the bytes) and served from our own host (docs/protocol.md#branding), so the screens never
 * load anything from a partner's server.
 */
import { createHash } from "node:crypto";
import { db } from "../db/client";
import { LOGO_MAX_BYTES, LogoError, sniffImageType, type LogoContentType } from "./logo-fetch";

export interface StoredLogo {
  /** SHA-256 of the bytes, lowercase hex. */
  hash: string;
  contentType: LogoContentType;
  /** Where the logo is served on our host: `/logos/<hash>.<ext>`. */
  path: string;
}

export interface LogoContent {
  hash: string;
  contentType: LogoContentType;
  data: Buffer;
}

const EXTENSIONS = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
} as const satisfies Record<LogoContentType, string>;

const HASH = /^[0-9a-f]{64}$/;
const FILE_NAME = /^([0-9a-f]{64})\.(png|jpg|webp)$/;

/** A stored logo never changes under its name, so caches may keep it for a year. */
const LOGO_HEADERS = {
  "Cache-Control": "public, max-age=31536000, immutable",
  "X-Content-Type-Options": "nosniff",
  // Opened directly, an image may run nothing and load nothing.
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; sandbox",
} as const;

export function logoPath(hash: string, contentType: LogoContentType): string {
  return `/logos/${hash}.${EXTENSIONS[contentType]}`;
}

/**
 * Stores the bytes as a logo (idempotent: the same bytes always land on the
 * same row). Refuses anything but PNG, JPEG or WebP, and anything over the
 * size limit.
 */
export async function storeLogo(bytes: Buffer): Promise<StoredLogo> {
  const contentType = assertStorableLogo(bytes);
  const hash = createHash("sha256").update(bytes).digest("hex");
  // INSERT … ON CONFLICT DO NOTHING: concurrent stores of the same bytes all succeed.
  await db().logo.createMany({
    data: [{ hash, contentType, data: new Uint8Array(bytes) }],
    skipDuplicates: true,
  });
  return { hash, contentType, path: logoPath(hash, contentType) };
}

function assertStorableLogo(bytes: Buffer): LogoContentType {
  if (bytes.length > LOGO_MAX_BYTES) {
    throw new LogoError("too_large", `the logo is larger than ${LOGO_MAX_BYTES} bytes`);
  }
  const contentType = sniffImageType(bytes);
  if (!contentType) {
    throw new LogoError("unsupported_type", "the logo must be a PNG, JPEG or WebP image");
  }
  return contentType;
}

/** The stored logo with this hash, or null (also for anything that is not a SHA-256 hex). */
export async function findLogo(hash: string): Promise<LogoContent | null> {
  if (!HASH.test(hash)) return null;
  const row = await db().logo.findUnique({ where: { hash } });
  if (!row) return null;
  const contentType = sniffImageType(row.data);
  // Only rows written by storeLogo are served; the type is re-derived from the bytes.
  if (!contentType) return null;
  return { hash: row.hash, contentType, data: Buffer.from(row.data) };
}

/** GET /logos/<hash>.<ext>: the stored bytes, or 404 for anything else. */
export async function handleLogoRequest(request: Request, file: string): Promise<Response> {
  const match = FILE_NAME.exec(file);
  const [, hash, extension] = match ?? [];
  if (!hash || !extension) return notFound();
  const logo = await findLogo(hash);
  if (!logo || EXTENSIONS[logo.contentType] !== extension) return notFound();

  const etag = `"${logo.hash}"`;
  const headers = { ...LOGO_HEADERS, ETag: etag };
  if (matchesEtag(request.headers.get("If-None-Match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(new Uint8Array(logo.data), {
    status: 200,
    headers: {
      ...headers,
      "Content-Type": logo.contentType,
      "Content-Length": String(logo.data.length),
    },
  });
}

/** RFC 9110 §13.1.2: If-None-Match uses weak comparison; `*` matches any current representation. */
function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(",")
    .map((candidate) => candidate.trim().replace(/^W\//, ""))
    .some((candidate) => candidate === "*" || candidate === etag);
}

function notFound(): Response {
  return new Response("Not found", {
    status: 404,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": LOGO_HEADERS["Content-Security-Policy"],
    },
  });
}
