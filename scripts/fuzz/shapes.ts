import type { Answer, FuzzRequest } from "./types";

/**
 * The documented answer shapes the fuzz oracle judges against (/docs,
 * /openapi.json, /docs/errors): each returns the list of violations.
 */

/** RFC 6749 §5.2 codes the token endpoint may answer. */
export const TOKEN_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
];
/** RFC 7009 §2.2.1 adds unsupported_token_type for revoke. */
export const REVOKE_CODES = ["invalid_request", "invalid_client", "unsupported_token_type"];
/** What the authorize relay may carry (/docs/errors; /docs/relay). server_error is a hidden 500. */
export const RELAY_CODES = [
  "invalid_request",
  "unsupported_response_type",
  "invalid_scope",
  "access_denied",
  "temporarily_unavailable",
  "unauthorized_client",
];

export type Check = (request: FuzzRequest, answer: Answer) => string[];

export const contentType = (a: Answer) => (a.headers["content-type"] ?? "").toLowerCase();
export const isEmpty = (a: Answer) => a.body.length === 0;

export function parseJson(
  answer: Answer,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (!contentType(answer).startsWith("application/json")) {
    return {
      ok: false,
      problem: `expected JSON, got content-type "${contentType(answer) || "none"}"`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(answer.body.toString("utf8")) };
  } catch {
    return { ok: false, problem: "the body is not valid JSON" };
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `{error, error_description?}` with the error in `codes` (when given); description required unless optional. */
export function errorBody(
  answer: Answer,
  options: { codes?: string[]; description?: "required" | "optional" } = {},
): string[] {
  const parsed = parseJson(answer);
  if (!parsed.ok) return [parsed.problem];
  const body = parsed.value;
  if (!isRecord(body) || typeof body.error !== "string")
    return ["the error body has no string `error`"];
  const problems: string[] = [];
  if (options.codes && !options.codes.includes(body.error))
    problems.push(`unknown error code "${body.error}"`);
  const description = body.error_description;
  if (
    description === undefined
      ? (options.description ?? "required") === "required"
      : typeof description !== "string"
  ) {
    problems.push("`error_description` must be a string");
  }
  return problems;
}

/** `{status, reason, bankErrorCode?, detail?}` whose status is the HTTP status (/docs/sync). */
export function syncProblem(answer: Answer): string[] {
  const parsed = parseJson(answer);
  if (!parsed.ok) return [parsed.problem];
  const body = parsed.value;
  if (!isRecord(body)) return ["the problem body is not an object"];
  const problems: string[] = [];
  if (body.status !== answer.status)
    problems.push(`problem status ${String(body.status)} differs from HTTP ${answer.status}`);
  if (typeof body.reason !== "string" || body.reason === "")
    problems.push("the problem has no string `reason`");
  for (const field of ["bankErrorCode", "detail"]) {
    if (body[field] !== undefined && typeof body[field] !== "string")
      problems.push(`\`${field}\` must be a string`);
  }
  return problems;
}

export function jsonOk(answer: Answer, shape?: (v: unknown) => boolean): string[] {
  const parsed = parseJson(answer);
  if (!parsed.ok) return [parsed.problem];
  return shape && !shape(parsed.value) ? ["the 2xx body does not have the documented shape"] : [];
}

export function statusIn(answer: Answer, allowed: number[]): string[] {
  return allowed.includes(answer.status)
    ? []
    : [`status ${answer.status} is not one this endpoint documents (${allowed.join(", ")})`];
}

export function redirect(answer: Answer): string[] {
  return answer.headers.location ? [] : [`a ${answer.status} without Location`];
}

/** RFC 6750 §3: 401 invalid_token / 403 insufficient_scope with WWW-Authenticate: Bearer. */
export function bearerRefusal(answer: Answer): string[] {
  const code = answer.status === 401 ? "invalid_token" : "insufficient_scope";
  const problems = errorBody(answer, { codes: [code] });
  if (!/^Bearer\b/.test(answer.headers["www-authenticate"] ?? ""))
    problems.push("no WWW-Authenticate: Bearer");
  return problems;
}

/** The form_post relay page (/docs/relay): an auto-posting form; an error relay names a known code. */
export function relayPage(answer: Answer, codes: string[]): string[] {
  if (!contentType(answer).startsWith("text/html"))
    return [`expected the relay page, got "${contentType(answer)}"`];
  const html = answer.body.toString("utf8");
  if (!html.includes('<form id="relay" method="post"'))
    return ["a 200 HTML answer that is not the relay page"];
  const error = /name="error" value="([^"]*)"/.exec(html)?.[1];
  if (error !== undefined && !codes.includes(error)) return [`the relay carries error "${error}"`];
  return [];
}

export function htmlPage(answer: Answer): string[] {
  if (isEmpty(answer)) return [];
  return contentType(answer).startsWith("text/html")
    ? []
    : [`expected HTML, got "${contentType(answer) || "none"}"`];
}
