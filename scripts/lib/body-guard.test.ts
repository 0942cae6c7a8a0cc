import { createServer, request as httpRequest, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bodyLimitFor } from "../../lib/http/body-limits";
import { sendOversize } from "../load/attacks/oversize-body";
import { guardRequestBody, GuardedIncomingMessage, judgeDeclaredBody } from "./body-guard";

/**
 * The service's HTTP server guard, on a real server on loopback whose
 * "handler" records every request it is given and the body it read.
 */

const MB = 1024 * 1024;
const FRAMINGS = ["content-length", "chunked"] as const;
const OAUTH_LIMIT = bodyLimitFor("/oauth/token");
const PAGE_LIMIT = bodyLimitFor("/login/request");

let server: Server;
let origin: string;
let handled: { path: string; bytes: number; body: string }[] = [];

beforeAll(async () => {
  const onRequest = (request: GuardedIncomingMessage, response: ServerResponse) =>
    guardRequestBody(request, response, () => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks);
        handled.push({ path: request.url ?? "", bytes: body.length, body: body.toString("utf8") });
        response.writeHead(200, { "Content-Type": "text/plain" }).end(`read ${body.length}`);
      });
    });
  server = createServer({ IncomingMessage: GuardedIncomingMessage }, onRequest);
  server.on("checkContinue", (request: GuardedIncomingMessage, response: ServerResponse) => {
    if (judgeDeclaredBody(request).verdict !== "too_large") response.writeContinue();
    onRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  handled = [];
});

/** A complete small request; resolves with the answer. */
function send(
  path: string,
  body: Buffer,
  framing: "content-length" | "chunked",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${origin}${path}`, {
      method: "POST",
      headers:
        framing === "content-length"
          ? { "Content-Length": String(body.length) }
          : { "Transfer-Encoding": "chunked" },
    });
    outgoing.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    outgoing.on("error", reject);
    // Several chunks, so a chunked body really arrives in pieces.
    for (let at = 0; at < body.length; at += 16 * 1024)
      outgoing.write(body.subarray(at, at + 16 * 1024));
    outgoing.end();
  });
}

describe("the request body guard", () => {
  it.each(FRAMINGS)(
    "refuses an 11 MB %s body to /oauth/token with a 413 in JSON before the handler runs",
    async (framing) => {
      const answer = await sendOversize(origin, {
        path: "/oauth/token",
        prefix: "grant_type=authorization_code&code=c&code_verifier=v&pad=",
        totalBytes: 11 * MB,
        framing,
      });
      expect(answer.status).toBe(413);
      expect(answer.contentType).toBe("application/json; charset=utf-8");
      expect(JSON.parse(answer.body)).toEqual({
        error: "invalid_request",
        error_description: `the request body is larger than the ${OAUTH_LIMIT} bytes this endpoint accepts`,
        status: 413,
        reason: "invalid_request",
      });
      expect(answer.closed).toBe(true);
      expect(handled).toEqual([]);
      // Refused on its headers, or once the limit was passed: never after the whole body.
      expect(answer.sentBytes).toBeLessThan(11 * MB);
    },
  );

  it("refuses a 50 MB chunked body to a page with a short plain text, without reading it all", async () => {
    const answer = await sendOversize(origin, {
      path: "/login/request",
      prefix: "email=someone%40example.com&pad=",
      totalBytes: 50 * MB,
      framing: "chunked",
    });
    expect(answer.status).toBe(413);
    expect(answer.contentType).toBe("text/plain; charset=utf-8");
    expect(answer.body).toBe(
      `Request body too large: the request body is larger than the ${PAGE_LIMIT} bytes this endpoint accepts.\n`,
    );
    expect(answer.sentBytes).toBeLessThan(50 * MB);
    expect(handled).toEqual([]);
  });

  it.each(FRAMINGS)(
    "hands a %s body of exactly the limit to the handler, whole",
    async (framing) => {
      const body = Buffer.alloc(OAUTH_LIMIT, "x");
      body.write("token=abc&pad=");
      const answer = await send("/oauth/revoke", body, framing);
      expect(answer).toEqual({ status: 200, body: `read ${OAUTH_LIMIT}` });
      expect(handled).toEqual([
        { path: "/oauth/revoke", bytes: OAUTH_LIMIT, body: body.toString() },
      ]);
    },
  );

  it.each(FRAMINGS)("refuses a %s body one byte over the limit", async (framing) => {
    const answer = await send("/oauth/revoke", Buffer.alloc(OAUTH_LIMIT + 1, "x"), framing);
    expect(answer.status).toBe(413);
    expect(handled).toEqual([]);
  });

  it("judges the path as routing does: dot segments lead to the stricter limit", async () => {
    const answer = await send(
      "/demo/../oauth/token",
      Buffer.alloc(OAUTH_LIMIT + 1, "x"),
      "chunked",
    );
    expect(answer.status).toBe(413);
    expect(handled).toEqual([]);
  });

  it("answers Expect: 100-continue with 413 for a declared oversize body, so nothing is uploaded", async () => {
    const outcome = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const outgoing = httpRequest(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "Content-Length": String(11 * MB), Expect: "100-continue" },
      });
      outgoing.on("continue", () => {
        continued = true;
      });
      outgoing.on("response", (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode ?? 0, continued }));
      });
      outgoing.on("error", reject);
      outgoing.flushHeaders();
    });
    expect(outcome).toEqual({ status: 413, continued: false });
    expect(handled).toEqual([]);
  });

  it("survives a client that gives up in the middle of a held chunked body", async () => {
    await new Promise<void>((resolve) => {
      const outgoing = httpRequest(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "Transfer-Encoding": "chunked" },
      });
      outgoing.on("error", () => resolve());
      outgoing.write(Buffer.alloc(1024, "x"), () => {
        outgoing.destroy();
        resolve();
      });
    });
    const answer = await send("/oauth/revoke", Buffer.from("token=abc"), "chunked");
    expect(answer.status).toBe(200);
    expect(handled.map((entry) => entry.path)).toEqual(["/oauth/revoke"]);
  });
});
