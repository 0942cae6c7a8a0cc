import { bodyLimitFor, bodyTooLargeAnswer, pathnameOf } from "../../lib/http/body-limits";
import { isMalformedIdPath } from "../../lib/http/request-guards";
import {
  TOKEN_CODES,
  REVOKE_CODES,
  RELAY_CODES,
  type Check,
  contentType,
  isEmpty,
  isRecord,
  errorBody,
  syncProblem,
  jsonOk,
  statusIn,
  redirect,
  bearerRefusal,
  relayPage,
  htmlPage,
} from "./shapes";
import type { Answer, Family, FuzzRequest } from "./types";

/**
 * The fuzz oracle: what every answer must look like, whatever was sent.
 * Per docs/security.md, bad input always gets a clear 4xx in the documented shape,
 * never a 500. The shapes come from /docs, /openapi.json and
 * /docs/errors; each family's rule is one function below. A verdict is the
 * list of violations (empty = the answer is fine).
 */

const requestHeader = (request: FuzzRequest, name: string) =>
  Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1];

/**
 * Next takes a POST to a page with a multipart body or a Next-Action header
 * for a server action; the app defines none, so Next refuses it itself with a
 * plain-text 400 ("Invalid Server Action request.") or 409 ("Server Action
 * unavailable."). Pages document no POST: a clear 4xx, Next's own words.
 */
function isServerActionRefusal(request: FuzzRequest, answer: Answer): boolean {
  const action =
    /^multipart\/form-data/i.test(requestHeader(request, "content-type") ?? "") ||
    requestHeader(request, "next-action") !== undefined;
  return (
    request.method.toUpperCase() === "POST" &&
    action &&
    [400, 409].includes(answer.status) &&
    contentType(answer).startsWith("text/plain")
  );
}

const FAMILY_CHECKS: Record<Family, Check> = {
  "oauth-token": (request, answer) => {
    if (answer.status === 200)
      return jsonOk(answer, (v) => isRecord(v) && typeof v.access_token === "string");
    const problems = [
      ...statusIn(answer, [400, 401]),
      ...errorBody(answer, { codes: TOKEN_CODES }),
    ];
    // Whichever way the client authenticated, or if it did not (RFC 9110 §15.5.2).
    if (answer.status === 401 && !/^Basic\b/.test(answer.headers["www-authenticate"] ?? "")) {
      problems.push("a 401 without WWW-Authenticate: Basic");
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
    // An ended flow or an older tab's token: the browser is sent to the error screen's way forward.
    if (answer.status === 303) {
      return /^(https?:\/\/[^/]+)?\/error(\?|$)/.test(answer.headers.location ?? "")
        ? []
        : [`a 303 to ${answer.headers.location ?? "nowhere"}, not the error screen`];
    }
    return [...statusIn(answer, [400, 403]), ...errorBody(answer)];
  },
  data: (_request, answer) => {
    if (answer.status === 200)
      return jsonOk(
        answer,
        (v) =>
          Array.isArray(v) ||
          (isRecord(v) && Array.isArray(v.items) && typeof v.total === "number") ||
          // A page of the accounts list: items and the next page's cursor (or null).
          (isRecord(v) &&
            Array.isArray(v.items) &&
            (v.next === null || typeof v.next === "string")),
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
    // The forms' bare refusals (lib/flow/refusals.ts): 403 for a foreign Origin
    // or a bad token, 400 for a body that is not a form; nothing to show either.
    return [
      ...statusIn(answer, [400, 403]),
      ...(isEmpty(answer) ? [] : [`a ${answer.status} refusal with a body`]),
    ];
  },
  "flow-json": (_request, answer) => {
    if (answer.status === 303) return redirect(answer);
    if (answer.status === 200)
      return contentType(answer).startsWith("text/html")
        ? relayPage(answer, RELAY_CODES)
        : jsonOk(answer);
    return [
      // 404: the progress status of a flow that has no bank connection under way.
      ...statusIn(answer, [400, 401, 403, 404, 409]),
      ...errorBody(answer, { description: "optional" }),
    ];
  },
  "passkey-json": (_request, answer) => {
    if (answer.status === 200 || answer.status === 201) return jsonOk(answer);
    // The sign-in limits' refusal: JSON with Retry-After (checked above).
    if (answer.status === 429)
      return errorBody(answer, { codes: ["throttled"], description: "optional" });
    return [
      ...statusIn(answer, [400, 401, 403, 404, 409]),
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
    // Next's own endpoints (static assets, the image optimizer) are not the
    // product's: their 4xx is Next's short plain-text refusal ("url" parameter
    // is invalid, 404), outside the documented shapes.
    if (request.path.startsWith("/_next/") && [400, 404].includes(answer.status)) return [];
    if (isServerActionRefusal(request, answer)) return [];
    return htmlPage(answer);
  },
};

/**
 * Where a path's dot segments lead, when it has any. Next parses the target
 * as a WHATWG URL, which resolves `.`, `..` and their `%2e` forms (RFC 3986
 * §5.2.4): `/api/connect/clients/../branding` is a request for
 * /api/connect/branding, so another route answers it.
 */
export function dotSegmentTarget(path: string): string | null {
  const pathname = path.split("?")[0] ?? "";
  if (!/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(pathname)) return null;
  try {
    const target = new URL(pathname, "http://fuzz.invalid").pathname;
    return target === pathname ? null : target;
  } catch {
    return null;
  }
}

/**
 * A request that dot segments took to another route is held to that route's
 * documented shapes, not to this endpoint's: under /api/ a JSON body (the
 * data API's error or RFC 6750 refusal, or a sync problem) or a bodiless
 * 405 (with Allow) or 204 for a method it does not export; elsewhere, a page.
 */
function landedElsewhere(target: string, answer: Answer): string[] {
  if (answer.status >= 300 && answer.status < 400)
    return answer.status === 304 ? [] : redirect(answer);
  if (answer.status === 405 || answer.status === 204) {
    const allow = answer.status === 405 && !answer.headers.allow ? ["a 405 without Allow"] : [];
    return isEmpty(answer) ? allow : [`a ${answer.status} with a body`, ...allow];
  }
  if (!target.startsWith("/api/")) return htmlPage(answer);
  if (answer.status >= 200 && answer.status < 300) return jsonOk(answer);
  if (/^Bearer\b/.test(answer.headers["www-authenticate"] ?? "")) return bearerRefusal(answer);
  const error = errorBody(answer, { description: "optional" });
  const shape = error.length === 0 || syncProblem(answer).length === 0 ? [] : error;
  return [...statusIn(answer, [400, 401, 403, 404, 409]), ...shape];
}

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

const headBytes = (request: FuzzRequest) =>
  request.method.length +
  request.path.length +
  Object.entries(request.headers).reduce((sum, [k, v]) => sum + k.length + v.length + 4, 0);

/**
 * The bare status Node's HTTP parser answers a request with before the
 * service sees it, if it refuses it: 431 for a head over 16 KiB, 400 for a
 * target holding a byte from DEL up (node:http sends those, its server takes
 * only visible ASCII). It then closes the socket, so a client still uploading
 * a large body sees the connection reset instead of the status.
 */
export function nodeParserRefusal(request: FuzzRequest): number | null {
  if (headBytes(request) > 16 * 1024) return 431;
  if (/[\x7f-\xff]/.test(request.path)) return 400;
  return null;
}

/** The answers to methods a route does not export (and HEAD/OPTIONS Next derives). */
function methodRules(request: FuzzRequest, answer: Answer): string[] | null {
  const { methods, family } = request.endpoint;
  const method = request.method.toUpperCase();
  const exported =
    methods.includes(method as never) || (method === "HEAD" && methods.includes("GET"));
  if (answer.status === 405) {
    if (exported) return [`405 for ${method}, which this route exports`];
    // The edge's 405 (lib/http/edge.ts) carries no body and names the methods served.
    return [
      ...(isEmpty(answer) ? [] : ["a 405 with a body"]),
      ...(answer.headers.allow ? [] : ["a 405 without Allow"]),
    ];
  }
  if (method === "OPTIONS" && family !== "page" && answer.status === 204) return [];
  if (!exported && family !== "page")
    return [`${method} is not exported, yet the answer is ${answer.status} (expected 405)`];
  return null;
}

/**
 * A body over its path's limit is refused with 413 by the service's HTTP
 * server before any route (lib/http/body-limits.ts), in the shape documented
 * there; a 413 to a body within the limit is not the service's.
 */
function bodyLimitRefusal(request: FuzzRequest, answer: Answer): string[] {
  const pathname = pathnameOf(request.path);
  const limit = bodyLimitFor(pathname);
  const sent = request.body?.length ?? 0;
  if (sent <= limit) return [`413 for a body of ${sent} bytes, within the ${limit}-byte limit`];
  const expected = bodyTooLargeAnswer(pathname, limit);
  const problems: string[] = [];
  if (contentType(answer) !== expected.contentType)
    problems.push(`a 413 of type "${contentType(answer)}", not "${expected.contentType}"`);
  if (answer.body.toString("utf8") !== expected.body) problems.push("a 413 with another body");
  return problems;
}

export function judge(request: FuzzRequest, answer: Answer): string[] {
  if (answer.status >= 500) return [`server error ${answer.status}`];
  if (answer.status < 100) return ["no status"];
  if (isNodeParserRefusal(answer)) return [];
  if (answer.status === 413) return bodyLimitRefusal(request, answer);
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
  const jsonLimits =
    request.endpoint.family === "sync" || request.endpoint.family === "passkey-json";
  if (answer.status === 429 && (isEmpty(answer) || !jsonLimits)) {
    const problems: string[] = [];
    if (!isEmpty(answer)) problems.push("the service's 429 has a body");
    if (!/^\d+$/.test(answer.headers["retry-after"] ?? ""))
      problems.push("a 429 without an integer Retry-After");
    return problems;
  }
  if (answer.status === 429 && !/^\d+$/.test(answer.headers["retry-after"] ?? ""))
    return ["a 429 without an integer Retry-After"];
  const target = dotSegmentTarget(request.path);
  // A malformed id path is refused before routing whatever the method
  // (lib/http/request-guards): the family's 400 (or the logos' 404), even for
  // a method the route does not export. Unknown methods still get its 405.
  const refusedBeforeRouting =
    isMalformedIdPath(request.path.split("?")[0] ?? "") && answer.status !== 405;
  const methodVerdict =
    target === null && !refusedBeforeRouting ? methodRules(request, answer) : null;
  if (methodVerdict) return methodVerdict;
  if (request.method.toUpperCase() === "HEAD")
    return isEmpty(answer) ? [] : ["a HEAD answer with a body"];
  if (target !== null) return landedElsewhere(target, answer);
  return FAMILY_CHECKS[request.endpoint.family](request, answer);
}
