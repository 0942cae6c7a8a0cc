import { IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { bodyLimitFor, bodyTooLargeAnswer, pathnameOf } from "../../lib/http/body-limits";
import { API_CSP } from "../../lib/http/security-headers";

/**
 * Request bodies over the path's limit (lib/http/body-limits.ts) are refused
 * with 413 before any handler runs. Next alone would hand route handlers the
 * first 10 MB of a larger body as if it were all of it.
 *
 * - A declared Content-Length over the limit is refused at once (and before
 *   a `100 Continue`, so such a client does not even upload).
 * - A chunked body has no declared length: it is held back until it ends
 *   within the limit (then the handler gets all of it) or passes the limit
 *   (then it is refused and the rest is discarded).
 * - The refusal closes the connection, writing side first (RFC 9112 §9.6):
 *   the client still uploading would otherwise get a TCP reset that can
 *   destroy the 413 before it reads it. What it still sends is read and
 *   dropped for at most LINGER_MS.
 */

export const LINGER_MS = 3_000;

/** Node's request object (the server's `IncomingMessage` option), able to hold its body back. */
export class GuardedIncomingMessage extends IncomingMessage {
  #hold: {
    limit: number;
    received: number;
    chunks: Buffer[];
    settle: (fits: boolean) => void;
  } | null = null;
  #discarding = false;

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (this.#discarding) return chunk === null ? super.push(null) : true;
    const hold = this.#hold;
    if (!hold) return super.push(chunk, encoding);
    if (chunk === null) {
      this.#hold = null;
      for (const held of hold.chunks) super.push(held);
      const pushed = super.push(null);
      hold.settle(true);
      return pushed;
    }
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding);
    hold.received += bytes.length;
    if (hold.received > hold.limit) {
      this.#hold = null;
      this.#discarding = true;
      hold.settle(false);
      return true;
    }
    hold.chunks.push(bytes);
    return true;
  }

  /** Resolves true once the whole body arrived within `limit` bytes, false when it passed it. */
  holdBody(limit: number): Promise<boolean> {
    return new Promise((settle) => {
      this.#hold = { limit, received: 0, chunks: [], settle };
    });
  }

  /** Drops the rest of the body. */
  discardBody(): void {
    this.#hold = null;
    this.#discarding = true;
  }
}

export interface BodyJudgement {
  verdict: "fits" | "too_large" | "hold";
  pathname: string;
  limit: number;
}

/** What the request's headers say of its body against its path's limit. */
export function judgeDeclaredBody(request: IncomingMessage): BodyJudgement {
  const pathname = pathnameOf(request.url ?? "/");
  const limit = bodyLimitFor(pathname);
  const declared = request.headers["content-length"];
  // Node refuses a request carrying both headers, and any other body framing.
  const verdict =
    request.headers["transfer-encoding"] !== undefined
      ? "hold"
      : declared !== undefined && Number(declared) > limit
        ? "too_large"
        : "fits";
  return { verdict, pathname, limit };
}

/**
 * Runs `proceed` for a request whose body fits its path's limit (holding a
 * chunked body back until that is known), or answers 413 and closes.
 */
export function guardRequestBody(
  request: GuardedIncomingMessage,
  response: ServerResponse,
  proceed: () => void,
): void {
  const { verdict, pathname, limit } = judgeDeclaredBody(request);
  if (verdict === "fits") return proceed();
  if (verdict === "too_large") return refuseBody(request, response, pathname, limit);
  void request.holdBody(limit).then((fits) => {
    if (fits) proceed();
    else refuseBody(request, response, pathname, limit);
  });
}

function refuseBody(
  request: GuardedIncomingMessage,
  response: ServerResponse,
  pathname: string,
  limit: number,
): void {
  request.discardBody();
  const { contentType, body } = bodyTooLargeAnswer(pathname, limit);
  if (response.socket) lingerBeforeClosing(response.socket);
  response.writeHead(413, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(body),
    "Content-Security-Policy": API_CSP,
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    Connection: "close",
  });
  response.end(body);
}

/**
 * Node closes a `Connection: close` socket with destroySoon() once the answer
 * is written. Here it only ends the writing side, keeps reading (and
 * dropping) until the client closes or LINGER_MS pass, then destroys it.
 */
function lingerBeforeClosing(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
    this.once("end", () => this.destroy());
    this.end();
  };
}
