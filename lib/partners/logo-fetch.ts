/**
 * Fetches a partner's logo from its https address, server-side (docs/protocol.md#branding),
 * guarded against SSRF (docs/security.md): https only, public addresses only,
 * size and time limits, content sniffed as PNG, JPEG or WebP.
 *
 * The order of checks for every hop (the first request and each redirect):
 * parse the URL (https, no credentials, allowed port) → resolve the hostname
 * → refuse if any resolved address is not public → connect to exactly the
 * vetted address (pinned, so a DNS answer that changes between the check and
 * the connection cannot reach a private address) → status, size, redirect.
 */
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { isPublicIpAddress } from "../http/ip-address";
import {
  bareHostname,
  firstRefusedAddress,
  pinnedLookup,
  systemLookup,
  type ResolveHost,
} from "../http/public-address";

export type { ResolvedAddress, ResolveHost } from "../http/public-address";

export type LogoContentType = "image/png" | "image/jpeg" | "image/webp";

/** Largest logo accepted, in bytes. */
export const LOGO_MAX_BYTES = 512 * 1024;
/** Time allowed for the whole fetch, redirects included, in milliseconds. */
export const LOGO_FETCH_TIMEOUT_MS = 5_000;
/** Redirects followed before giving up. */
export const LOGO_MAX_REDIRECTS = 3;

export const LOGO_ERROR_CODES = [
  "invalid_url",
  "not_https",
  "credentials",
  "port_not_allowed",
  "private_address",
  "unreachable",
  "http_status",
  "too_many_redirects",
  "too_large",
  "timeout",
  "unsupported_type",
] as const;

export type LogoErrorCode = (typeof LOGO_ERROR_CODES)[number];

/** Why a logo was refused: a stable code and one plain-English line; internals ride in `cause`. */
export class LogoError extends Error {
  constructor(
    readonly code: LogoErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "LogoError";
  }
}

export interface FetchLogoOptions {
  /** Resolves a hostname to all its addresses (default: the system resolver). */
  lookup?: ResolveHost;
  /** Whether an address may be connected to (default: public internet addresses only). */
  isAllowedAddress?: (address: string) => boolean;
  /** Ports an https URL may name (default: 443 only). */
  allowedPorts?: readonly number[];
  /** Extra trusted certificate authorities (tests); the system store is used otherwise. */
  ca?: string | Buffer | readonly (string | Buffer)[];
  /** Total time limit in milliseconds (default {@link LOGO_FETCH_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Size limit in bytes (default {@link LOGO_MAX_BYTES}). */
  maxBytes?: number;
  /** Redirects followed (default {@link LOGO_MAX_REDIRECTS}). */
  maxRedirects?: number;
}

export interface FetchedLogo {
  contentType: LogoContentType;
  data: Buffer;
}

interface Settings {
  lookup: ResolveHost;
  isAllowedAddress: (address: string) => boolean;
  allowedPorts: readonly number[];
  ca: string | Buffer | (string | Buffer)[] | undefined;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

/** A URL that passed every check, with the one address it may be fetched from. */
interface VettedTarget {
  url: URL;
  /** The hostname as sent in Host and SNI (brackets removed from IPv6 literals). */
  hostname: string;
  port: number;
  address: string;
}

type HopOutcome = { kind: "body"; data: Buffer } | { kind: "redirect"; location: string };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export async function fetchLogo(url: string, options: FetchLogoOptions = {}): Promise<FetchedLogo> {
  const settings = toSettings(options);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.timeoutMs);
  try {
    let current = parseLogoUrl(url, settings);
    for (let redirects = 0; ; redirects += 1) {
      const target = await vetTarget(current, settings, deadline.signal);
      const outcome = await requestPinned(target, settings, deadline.signal);
      if (outcome.kind === "body") return assertSupportedImage(outcome.data);
      if (redirects >= settings.maxRedirects) {
        throw new LogoError(
          "too_many_redirects",
          `the logo address redirected more than ${settings.maxRedirects} times`,
        );
      }
      current = parseLogoUrl(resolveLocation(outcome.location, target.url), settings);
    }
  } finally {
    clearTimeout(timer);
  }
}

function toSettings(options: FetchLogoOptions): Settings {
  return {
    lookup: options.lookup ?? systemLookup,
    isAllowedAddress: options.isAllowedAddress ?? isPublicIpAddress,
    allowedPorts: options.allowedPorts ?? [443],
    ca:
      typeof options.ca === "object" && !Buffer.isBuffer(options.ca) ? [...options.ca] : options.ca,
    timeoutMs: options.timeoutMs ?? LOGO_FETCH_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? LOGO_MAX_BYTES,
    maxRedirects: options.maxRedirects ?? LOGO_MAX_REDIRECTS,
  };
}

/** An https URL without credentials; the port must be one we allow (docs/protocol.md#branding). */
function parseLogoUrl(value: string, settings: Settings): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new LogoError("invalid_url", `the logo address "${value}" is not a valid URL`, { cause });
  }
  assertHttps(url);
  assertNoCredentials(url);
  assertAllowedPort(url, settings);
  return url;
}

function assertHttps(url: URL): void {
  if (url.protocol !== "https:") {
    throw new LogoError(
      "not_https",
      `the logo address must use https, not ${url.protocol.replace(/:$/, "")}`,
    );
  }
}

function assertNoCredentials(url: URL): void {
  if (url.username !== "" || url.password !== "") {
    throw new LogoError("credentials", "the logo address must not contain a user name or password");
  }
}

function assertAllowedPort(url: URL, settings: Settings): void {
  const port = portOf(url);
  if (!settings.allowedPorts.includes(port)) {
    throw new LogoError("port_not_allowed", `the logo address may not use port ${port}`);
  }
}

function portOf(url: URL): number {
  return url.port === "" ? 443 : Number(url.port);
}

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch (cause) {
    throw new LogoError("invalid_url", `the logo address redirected to an invalid URL`, { cause });
  }
}

/** Resolves the hostname and refuses it if ANY of its addresses is not allowed. */
async function vetTarget(url: URL, settings: Settings, signal: AbortSignal): Promise<VettedTarget> {
  const hostname = bareHostname(url);
  const addresses = isIP(hostname)
    ? [hostname]
    : await resolveHostname(hostname, settings.lookup, signal);
  const refused = firstRefusedAddress(addresses, settings.isAllowedAddress);
  if (refused !== undefined) {
    throw new LogoError(
      "private_address",
      `the logo host ${hostname} resolves to ${refused}, which is not a public internet address`,
    );
  }
  const [address] = addresses;
  if (address === undefined) {
    throw new LogoError("unreachable", `the logo host ${hostname} has no address`);
  }
  return { url, hostname, port: portOf(url), address };
}

async function resolveHostname(
  hostname: string,
  lookup: ResolveHost,
  signal: AbortSignal,
): Promise<string[]> {
  let aborted: () => void = () => {};
  const timedOut = new Promise<never>((_, reject) => {
    aborted = () => reject(timeoutError());
    if (signal.aborted) aborted();
    signal.addEventListener("abort", aborted, { once: true });
  });
  try {
    const resolved = await Promise.race([lookup(hostname), timedOut]);
    return resolved.map((entry) => entry.address);
  } catch (cause) {
    if (cause instanceof LogoError) throw cause;
    throw new LogoError("unreachable", `the logo host ${hostname} could not be resolved`, {
      cause,
    });
  } finally {
    signal.removeEventListener("abort", aborted);
  }
}

function timeoutError(): LogoError {
  return new LogoError("timeout", "the logo could not be fetched within the time limit");
}

/** One GET to the vetted address; resolves with the body or a redirect's Location. */
function requestPinned(
  target: VettedTarget,
  settings: Settings,
  signal: AbortSignal,
): Promise<HopOutcome> {
  return new Promise<HopOutcome>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: HopOutcome | LogoError) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      if (outcome instanceof LogoError) {
        request.destroy();
        reject(outcome);
      } else {
        resolve(outcome);
      }
    };
    const onAbort = () => finish(timeoutError());

    const options: RequestOptions = {
      method: "GET",
      host: target.hostname,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      lookup: pinnedLookup(target.address),
      // TLS SNI and certificate checks use the name; RFC 6066 forbids an IP literal as SNI.
      ...(isIP(target.hostname) ? {} : { servername: target.hostname }),
      ca: settings.ca,
      agent: false,
      headers: {
        Accept: "image/png, image/jpeg, image/webp",
        "Accept-Encoding": "identity",
        "User-Agent": "BankConnect-LogoFetcher/1",
      },
    };
    const request = httpsRequest(options);
    request.on("response", (response) => {
      try {
        readResponse(response, target, settings, finish);
      } catch (error) {
        finish(error instanceof LogoError ? error : unreachable(target, error));
      }
    });
    request.on("error", (error) => finish(unreachable(target, error)));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    request.end();
  });
}

function unreachable(target: VettedTarget, cause: unknown): LogoError {
  return new LogoError("unreachable", `the logo could not be fetched from ${target.hostname}`, {
    cause,
  });
}

function readResponse(
  response: IncomingMessage,
  target: VettedTarget,
  settings: Settings,
  finish: (outcome: HopOutcome | LogoError) => void,
): void {
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (REDIRECT_STATUSES.has(status) && location) {
    finish({ kind: "redirect", location });
    response.destroy();
    return;
  }
  if (status < 200 || status > 299) {
    throw new LogoError("http_status", `the logo address answered with HTTP status ${status}`);
  }
  assertDeclaredSize(response, settings.maxBytes);

  const chunks: Buffer[] = [];
  let received = 0;
  response.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > settings.maxBytes) {
      finish(tooLarge(settings.maxBytes));
      return;
    }
    chunks.push(chunk);
  });
  response.on("end", () => finish({ kind: "body", data: Buffer.concat(chunks) }));
  response.on("error", (error) => finish(unreachable(target, error)));
  response.on("close", () => {
    if (!response.complete) finish(unreachable(target, new Error("connection closed early")));
  });
}

function assertDeclaredSize(response: IncomingMessage, maxBytes: number): void {
  const declared = response.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge(maxBytes);
}

function tooLarge(maxBytes: number): LogoError {
  return new LogoError("too_large", `the logo is larger than ${maxBytes} bytes`);
}

/** The logo must be PNG, JPEG or WebP, judged by its bytes, never by Content-Type (docs/protocol.md#branding). */
function assertSupportedImage(data: Buffer): FetchedLogo {
  const contentType = sniffImageType(data);
  if (!contentType) {
    throw new LogoError("unsupported_type", "the logo must be a PNG, JPEG or WebP image");
  }
  return { contentType, data };
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

/** The image type its magic bytes announce, or null for anything but PNG, JPEG and WebP. */
export function sniffImageType(bytes: Uint8Array): LogoContentType | null {
  if (startsWith(bytes, PNG_SIGNATURE, 0)) return "image/png";
  if (startsWith(bytes, JPEG_SIGNATURE, 0)) return "image/jpeg";
  // RIFF container: "RIFF", 4-byte size, then the form type "WEBP".
  if (startsWith(bytes, RIFF, 0) && startsWith(bytes, WEBP, 8)) return "image/webp";
  return null;
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset: number): boolean {
  return (
    bytes.length >= offset + signature.length &&
    signature.every((byte, index) => bytes[offset + index] === byte)
  );
}
