import { OAuthError } from "./errors";
import { readFormBody, readJsonBody, type BodyRead } from "../http/body-limits";

/** Request bodies larger than this are refused before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A parameter given twice is refused (RFC 6749 §3.1; docs/architecture.md#parse-dont-validate). */
export function findDuplicate(params: URLSearchParams): string | null {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
}

export function assertNoDuplicates(params: URLSearchParams): void {
  const duplicate = findDuplicate(params);
  if (duplicate)
    throw new OAuthError(
      "invalid_request",
      `parameter ${asciiName(duplicate)} was given more than once`,
    );
}

/** RFC 6749 §3.1: a parameter without a value is treated as omitted. */
export function optionalParam(params: URLSearchParams, name: string): string | null {
  const value = params.get(name);
  return value === null || value === "" ? null : value;
}

/** Parameter names echoed in ASCII descriptions (RFC 6749 §4.1.2.1: error_description is ASCII). */
export function asciiName(name: string): string {
  return name.replace(/[^\x20-\x7e]/g, "?").slice(0, 64);
}

/** A read body, or the OAuth refusal of one that is oversized (never truncated) or malformed. */
function orInvalidRequest<T>(read: BodyRead<T>, malformed: string): T {
  if (read.ok) return read.value;
  throw new OAuthError(
    "invalid_request",
    read.problem === "too_large" ? "request body too large" : malformed,
  );
}

/** The form body of a token, revoke or cancel request. */
export async function readOAuthForm(request: Request): Promise<URLSearchParams> {
  return orInvalidRequest(await readFormBody(request, MAX_BODY_BYTES), "the form is malformed");
}

/** The JSON body a first-generation client sends to the token endpoint. */
export async function readOAuthJson(request: Request): Promise<unknown> {
  return orInvalidRequest(
    await readJsonBody(request, MAX_BODY_BYTES),
    "the JSON body could not be parsed",
  );
}

export type BodyKind = "form" | "json" | "other";

export function bodyKind(request: Request): BodyKind {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return "form";
  if (type === "application/json") return "json";
  return "other";
}
