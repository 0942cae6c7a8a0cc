import type { Answer, Family, FuzzRequest } from "./types";

/**
 * The fuzz oracle: what every answer must look like, whatever was sent.
 * DESIGN.md §8: bad input always gets a clear 4xx in the documented shape,
 * never a 500. The shapes come from CONTRACT.md, /openapi.json and
 * /docs/errors; each family's rule is one function below. A verdict is the
 * list of violations (empty = the answer is fine).
 */

/** RFC 6749 §5.2 codes the token endpoint may answer. */
const TOKEN_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
];
/** RFC 7009 §2.2.1 adds unsupported_token_type for revoke. */
const REVOKE_CODES = ["invalid_request", "invalid_client", "unsupported_token_type"];
/** What the authorize relay may carry (/docs/errors; CONTRACT §3). server_error is a hidden 500. */
const RELAY_CODES = [
  "invalid_request",
  "unsupported_response_type",
  "invalid_scope",
  "access_denied",
  "temporarily_unavailable",
  "unauthorized_client",
];

type Check = (request: FuzzRequest, answer: Answer) => string[];

const contentType = (a: Answer) => (a.headers["content-type"] ?? "").toLowerCase();
const isEmpty = (a: Answer) => a.body.length === 0;

function parseJson(answer: Answer): { ok: true; value: unknown } | { ok: false; problem: string } {
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

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `{error, error_description?}` with the error in `codes` (when given); description required unless optional. */
function errorBody(
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

/** CONTRACT §7.4: `{status, reason, bankErrorCode?, detail?}` whose status is the HTTP status. */
function syncProblem(answer: Answer): string[] {
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

function jsonOk(answer: Answer, shape?: (v: unknown) => boolean): string[] {
  const parsed = parseJson(answer);
  if (!parsed.ok) return [parsed.problem];
  return shape && !shape(parsed.value) ? ["the 2xx body does not have the documented shape"] : [];
}

function statusIn(answer: Answer, allowed: number[]): string[] {
  return allowed.includes(answer.status)
    ? []
    : [`status ${answer.status} is not one this endpoint documents (${allowed.join(", ")})`];
}

function redirect(answer: Answer): string[] {
  return answer.headers.location ? [] : [`a ${answer.status} without Location`];
}

/** RFC 6750 §3: 401 invalid_token / 403 insufficient_scope with WWW-Authenticate: Bearer. */
function bearerRefusal(answer: Answer): string[] {
  const code = answer.status === 401 ? "invalid_token" : "insufficient_scope";
  const problems = errorBody(answer, { codes: [code] });
  if (!/^Bearer\b/.test(answer.headers["www-authenticate"] ?? ""))
    problems.push("no WWW-Authenticate: Bearer");
  return problems;
}

/** The form_post relay page (SPEC 2.2): an auto-posting form; an error relay names a known code. */
function relayPage(answer: Answer, codes: string[]): string[] {
  if (!contentType(answer).startsWith("text/html"))
    return [`expected the relay page, got "${contentType(answer)}"`];
  const html = answer.body.toString("utf8");
  if (!html.includes('<form id="relay" method="post"'))
    return ["a 200 HTML answer that is not the relay page"];
  const error = /name="error" value="([^"]*)"/.exec(html)?.[1];
  if (error !== undefined && !codes.includes(error)) return [`the relay carries error "${error}"`];
  return [];
}

function htmlPage(answer: Answer): string[] {
  if (isEmpty(answer)) return [];
  return contentType(answer).startsWith("text/html")
    ? []
    : [`expected HTML, got "${contentType(answer) || "none"}"`];
}

const FAMILY_CHECKS: Record<Family, Check> = {
  "oauth-token": (request, answer) => {
    if (answer.status === 200)
      return jsonOk(answer, (v) => isRecord(v) && typeof v.access_token === "string");
    const problems = [
      ...statusIn(answer, [400, 401]),
      ...errorBody(answer, { codes: TOKEN_CODES }),
    ];
    if (
      answer.status === 401 &&
      /^basic(\s|$)/i.test(request.headers.authorization ?? "") &&
      !/^Basic\b/.test(answer.headers["www-authenticate"] ?? "")
    ) {
      problems.push("a 401 to Basic credentials without WWW-Authenticate: Basic");
    }
    return problems;
  },
  "oauth-revoke": (request, answer) => {
    if (answer.status === 200) return isEmpty(answer) ? [] : ["a successful revoke has a body"];
    return FAMILY_CHECKS["oauth-token"](request, answer)
      .filter((p) => !p.startsWith("unknown error code"))
      .concat(errorBody(answer, { codes: REVOKE_CODES }).filter((p) => p.startsWith("unknown")));
  },
  "oauth-bearer": (_request, answer) => {
    if (answer.status === 200)
      return jsonOk(answer, (v) => isRecord(v) && typeof v.sub === "string");
    return [...statusIn(answer, [401]), ...bearerRefusal(answer)];
  },
  authorize: (_request, answer) => {
    if (answer.status === 303) return redirect(answer);
    if (answer.status === 200) return relayPage(answer, RELAY_CODES);
    return [...statusIn(answer, [400]), ...errorBody(answer, { codes: ["invalid_request"] })];
  },
  cancel: (_request, answer) => {
    if (answer.status === 200) return relayPage(answer, ["access_denied"]);
    return [...statusIn(answer, [400, 403]), ...errorBody(answer)];
  },
  data: (_request, answer) => {
    if (answer.status === 200)
      return jsonOk(
        answer,
        (v) =>
          Array.isArray(v) ||
          (isRecord(v) && Array.isArray(v.items) && typeof v.total === "number"),
      );
    if (answer.status === 401 || answer.status === 403) return bearerRefusal(answer);
    return [...statusIn(answer, [400, 404]), ...errorBody(answer, { description: "optional" })];
  },
  sync: (_request, answer) => {
    if (answer.status === 200)
      return jsonOk(answer, (v) => isRecord(v) && typeof v.newTransactions === "number");
    if (answer.status === 401 || answer.status === 403) return bearerRefusal(answer);
    return [...statusIn(answer, [400, 404, 409, 413, 429]), ...syncProblem(answer)];
  },
  partner: (_request, answer) => {
    if (answer.status === 204) return isEmpty(answer) ? [] : ["a 204 with a body"];
    if (answer.status >= 200 && answer.status < 300) return jsonOk(answer);
    if (answer.status === 401 || answer.status === 403) {
      const bearer = /^Bearer\b/.test(answer.headers["www-authenticate"] ?? "");
      return bearer ? bearerRefusal(answer) : errorBody(answer, { description: "optional" });
    }
    return [
      ...statusIn(answer, [400, 404, 409]),
      ...errorBody(answer, { description: "optional" }),
    ];
  },
  "public-json": (_request, answer) => {
    if (answer.status === 200) return jsonOk(answer);
    // 400 invalid_request: an id path that is not valid percent-encoding (lib/http/request-guards).
    return [...statusIn(answer, [400, 404]), ...errorBody(answer)];
  },
  logo: (_request, answer) => {
    if (answer.status === 200)
      return contentType(answer).startsWith("image/") ? [] : ["a logo that is not an image"];
    if (answer.status === 304) return [];
    return [
      ...statusIn(answer, [404]),
      ...(contentType(answer).startsWith("text/plain") ? [] : ["a 404 that is not text/plain"]),
    ];
  },
  "flow-form": (_request, answer) => {
    if (answer.status === 303) return redirect(answer);
    if (answer.status === 200) return relayPage(answer, RELAY_CODES);
    return [...statusIn(answer, [403]), ...(isEmpty(answer) ? [] : ["a 403 refusal with a body"])];
  },
  "flow-json": (_request, answer) => {
    if (answer.status === 303) return redirect(answer);
    if (answer.status === 200)
      return contentType(answer).startsWith("text/html")
        ? relayPage(answer, RELAY_CODES)
        : jsonOk(answer);
    return [
      ...statusIn(answer, [400, 401, 403, 409]),
      ...errorBody(answer, { description: "optional" }),
    ];
  },
  demo: (_request, answer) => {
    if (answer.status === 303) return redirect(answer);
    return [
      ...statusIn(answer, [403, 404]),
      ...(contentType(answer).startsWith("text/plain") ? [] : ["a refusal that is not text/plain"]),
    ];
  },
  page: (request, answer) => {
    if (answer.status >= 300 && answer.status < 400)
      return answer.status === 304 ? [] : redirect(answer);
    // Next's static-asset 404 is plain text.
    if (request.path.startsWith("/_next/") && answer.status === 404) return [];
    return htmlPage(answer);
  },
};

/**
 * Node's HTTP parser refuses some requests (unknown methods, headers over
 * 16 KiB) before the service sees them: a bare status with no body.
 */
function isNodeParserRefusal(answer: Answer): boolean {
  return (
    [400, 413, 414, 431].includes(answer.status) &&
    isEmpty(answer) &&
    !answer.headers["content-type"]
  );
}

/** Next's own answers to methods a route does not export (and HEAD/OPTIONS it derives). */
function methodRules(request: FuzzRequest, answer: Answer): string[] | null {
  const { methods, family } = request.endpoint;
  const method = request.method.toUpperCase();
  const exported =
    methods.includes(method as never) || (method === "HEAD" && methods.includes("GET"));
  if (answer.status === 405) {
    if (exported) return [`405 for ${method}, which this route exports`];
    // Next's own 405 carries no body (and no Allow header).
    return isEmpty(answer) ? [] : ["a 405 with a body"];
  }
  if (method === "OPTIONS" && family !== "page" && answer.status === 204) return [];
  if (!exported && family !== "page")
    return [`${method} is not exported, yet the answer is ${answer.status} (expected 405)`];
  return null;
}

export function judge(request: FuzzRequest, answer: Answer): string[] {
  if (answer.status >= 500) return [`server error ${answer.status}`];
  if (answer.status < 100) return ["no status"];
  if (isNodeParserRefusal(answer)) return [];
  // Next's trailing-slash 308 echoes the query as sent; left to Next.
  const trailingSlash =
    request.path.split("?")[0]?.endsWith("/") && [307, 308].includes(answer.status);
  if (trailingSlash) return redirect(answer);
  const headerBytes = Object.entries(answer.headers).reduce(
    (sum, [k, v]) => sum + k.length + v.length + 4,
    0,
  );
  if (headerBytes > 16 * 1024)
    return [
      `the answer's headers are ${headerBytes} bytes (over 16 KiB: proxies and browsers refuse them)`,
    ];
  // Next's trailing-slash normalisation.
  if ((answer.status === 308 || answer.status === 307) && request.path.split("?")[0]?.endsWith("/"))
    return redirect(answer);
  if (answer.status === 429 && (isEmpty(answer) || request.endpoint.family !== "sync")) {
    const problems: string[] = [];
    if (!isEmpty(answer)) problems.push("the service's 429 has a body");
    if (!/^\d+$/.test(answer.headers["retry-after"] ?? ""))
      problems.push("a 429 without an integer Retry-After");
    return problems;
  }
  if (answer.status === 429 && !/^\d+$/.test(answer.headers["retry-after"] ?? ""))
    return ["a 429 without an integer Retry-After"];
  const methodVerdict = methodRules(request, answer);
  if (methodVerdict) return methodVerdict;
  if (request.method.toUpperCase() === "HEAD")
    return isEmpty(answer) ? [] : ["a HEAD answer with a body"];
  return FAMILY_CHECKS[request.endpoint.family](request, answer);
}
