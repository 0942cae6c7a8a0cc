import http from "node:http";
import zlib from "node:zlib";
import type { Answer, FuzzRequest } from "./types";

/**
 * Sends a request byte for byte over node:http (fetch would normalise the
 * path and refuse some of the malformed headers the run needs to send).
 */

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const TIMEOUT_MS = 30_000;

/**
 * The body as the service meant it: Next compresses whenever Accept-Encoding
 * allows (`*` included, RFC 9110 §12.5.3), so the oracle judges the decoded
 * bytes. A body that does not decode is left as sent, for the oracle to name.
 */
export function decodeBody(headers: Record<string, string>, body: Buffer): Buffer {
  const encoding = (headers["content-encoding"] ?? "").trim().toLowerCase();
  try {
    if (encoding === "gzip" || encoding === "x-gzip") return zlib.gunzipSync(body);
    if (encoding === "br") return zlib.brotliDecompressSync(body);
    if (encoding === "deflate") return zlib.inflateSync(body);
  } catch {
    return body;
  }
  return body;
}

export function send(origin: string, request: FuzzRequest, clientIp: string): Promise<Answer> {
  const url = new URL(origin);
  const headers: Record<string, string> = {
    "x-forwarded-for": clientIp,
    ...request.headers,
  };
  if (request.body) headers["content-length"] = String(request.body.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers,
        timeout: TIMEOUT_MS,
        // Read oversized answers too, so the oracle can name them.
        maxHeaderSize: 1024 * 1024,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const flat: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: flat,
            body: decodeBody(flat, Buffer.concat(chunks)),
          });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on("error", reject);
    req.end(request.body);
  });
}

export function closeConnections(): void {
  agent.destroy();
}
