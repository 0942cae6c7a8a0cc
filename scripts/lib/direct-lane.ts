import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { DirectHandler } from "../../lib/api/direct-routes";
import { requestWithBody } from "../../lib/http/body-limits";
import { jsonTextOf } from "../../lib/http/respond";
import { runAnsweringDirectly } from "../../lib/request-context";

const gzipAsync = promisify(gzip);

/** Bodies from this size on are sent gzip-compressed to a client that accepts it, as Next does. */
export const COMPRESS_FROM_BYTES = 1024;

/** True when the Accept-Encoding header accepts gzip (RFC 9110 §12.5.3: `q=0` refuses it). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [coding, ...parameters] = part.trim().toLowerCase().split(";");
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
    weights.set(coding!.trim(), q === undefined ? 1 : Number(q.slice(2)));
  }
  const weight = weights.get("gzip") ?? weights.get("*") ?? 0;
  return weight > 0;
}

/**
 * The request's headers as the handler gets them: as the server stamped them
 * (the client address, the request id) and the edge left them, which is what
 * Next's handlers read too, never the raw pairs the client sent
 * (docs/edge.md). As pairs: the Request makes its own Headers of them (a
 * Headers made here would be copied again).
 */
export function headerPairs(headers: IncomingHttpHeaders): [string, string][] {
  const pairs: [string, string][] = [];
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === "string") pairs.push([name, value]);
    else if (value) for (const each of value) pairs.push([name, each]);
  }
  return pairs;
}

/**
 * Answers a partner API request from its handler without Next
 * (lib/api/direct-routes.ts): the Node request becomes a fetch Request, the
 * handler's Response is written back. Headers the edge already set on the
 * response win over the handler's, as they do when Next answers.
 */
export async function answerDirectly(
  request: IncomingMessage,
  response: ServerResponse,
  route: { handler: DirectHandler; params: Record<string, string> },
  origin: string,
): Promise<void> {
  const headers = headerPairs(request.headers);
  const method = request.method ?? "GET";
  const url = origin + (request.url ?? "/");
  let fetchRequest: Request;
  if (method !== "GET" && method !== "HEAD") {
    // The body guard has already held back or refused anything over the path's limit.
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    // Handed to the handler as bytes, not as a stream it would read back into bytes.
    fetchRequest = requestWithBody(url, { method, headers }, Buffer.concat(chunks));
  } else {
    request.resume();
    fetchRequest = new Request(url, { method, headers });
  }
  const answer = await runAnsweringDirectly(() =>
    route.handler(fetchRequest, { params: Promise.resolve(route.params) }),
  );
  const text = jsonTextOf(answer);
  // Encoded once: its length and the bytes written (a string would be measured, then encoded).
  let bytes =
    text !== undefined
      ? Buffer.from(text)
      : answer.body
        ? Buffer.from(await answer.arrayBuffer())
        : null;
  response.setHeader("vary", "Accept-Encoding");
  if (
    bytes &&
    bytes.length >= COMPRESS_FROM_BYTES &&
    acceptsGzip(request.headers["accept-encoding"])
  ) {
    // Compressed on libuv's thread pool, off the thread that serves requests.
    bytes = await gzipAsync(bytes);
    response.setHeader("content-encoding", "gzip");
  }
  response.statusCode = answer.status;
  answer.headers.forEach((value, name) => {
    if (name === "set-cookie" || response.hasHeader(name)) return;
    response.setHeader(name, value);
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0 && !response.hasHeader("set-cookie"))
    response.setHeader("set-cookie", cookies);
  response.setHeader("content-length", bytes?.length ?? 0);
  response.end(bytes ?? undefined);
}
