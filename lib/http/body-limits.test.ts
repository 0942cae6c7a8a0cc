import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { handleLoginRequest } from "../flow/login";
import { handleBulkSync } from "../api/sync";
import { ISSUER, uniqueEmail } from "../../test/oauth-fixtures";
import {
  bodyLimitFor,
  BodyTooLargeError,
  DEFAULT_BODY_LIMIT,
  readBodyBytes,
  bodyTooLargeFor,
  readBodyText,
  readFormBody,
  readJsonBody,
  requestWithBody,
} from "./body-limits";
import type { ApiKeyPrincipal } from "../keys/api-keys";

/** A body streamed in `chunks` pieces of `size` bytes, counting how many pieces were pulled. */
function streamed(chunks: number, size: number, headers: Record<string, string> = {}) {
  const pulled = { count: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled.count === chunks) return controller.close();
        pulled.count += 1;
        controller.enqueue(new Uint8Array(size).fill(0x61));
      },
      cancel() {
        pulled.cancelled = true;
      },
      // Nothing is pulled ahead of a read.
    },
    { highWaterMark: 0 },
  );
  const request = new Request(`${ISSUER}/login/request`, {
    method: "POST",
    headers,
    body,
    duplex: "half",
  } as RequestInit);
  return { request, pulled };
}

describe("request body limits", () => {
  it("gives each path the limit of its longest matching prefix", () => {
    expect(bodyLimitFor("/oauth/token")).toBe(64 * 1024);
    expect(bodyLimitFor("/api/sync")).toBe(64 * 1024);
    expect(bodyLimitFor("/api/partner/logo")).toBe(1024 * 1024);
    expect(bodyLimitFor("/login/request")).toBe(DEFAULT_BODY_LIMIT);
    expect(bodyLimitFor("/")).toBe(DEFAULT_BODY_LIMIT);
  });

  it("refuses a streamed body once it passes the limit, and reads no further", async () => {
    const { request, pulled } = streamed(100, 1024);
    await expect(readBodyBytes(request, 10 * 1024)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(pulled.count).toBeLessThan(100);
    expect(pulled.cancelled).toBe(true);
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    const { request, pulled } = streamed(2, 1024, { "Content-Length": String(11 * 1024 * 1024) });
    await expect(readBodyBytes(request, 1024 * 1024)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(pulled.count).toBe(0);
  });

  it("reads a body of exactly the limit whole, decoded as Request.text() decodes it", async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from("é=1&bad="),
      Buffer.from([0xff]),
    ]);
    const request = () => new Request(`${ISSUER}/x`, { method: "POST", body: bytes });
    expect(await readBodyText(request(), bytes.length)).toBe(await request().text());
    await expect(readBodyText(request(), bytes.length - 1)).rejects.toBeInstanceOf(
      BodyTooLargeError,
    );
  });

  it("answers a body over the limit with the path's 413: JSON under /api and /oauth, text elsewhere", async () => {
    const over = async (path: string) => {
      const request = new Request(`${ISSUER}${path}`, { method: "POST", body: "xx" });
      const read = await readFormBody(request, 1);
      if (read.ok || read.problem !== "too_large") throw new Error("read over its limit");
      return bodyTooLargeFor(request, read.limit);
    };
    const api = await over("/api/sync");
    expect(api.status).toBe(413);
    expect(await api.json()).toMatchObject({ error: "invalid_request", status: 413 });
    const page = await over("/login/request");
    expect(page.status).toBe(413);
    expect(page.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });
});

describe("the form and JSON readers", () => {
  const post = (body: string) => new Request(`${ISSUER}/x`, { method: "POST", body });

  it("parse a whole body and refuse one over the limit without parsing any of it", async () => {
    const form = await readFormBody(post("a=1&b=%C3%A9"), 12);
    expect(form.ok && [...form.value]).toEqual([
      ["a", "1"],
      ["b", "é"],
    ]);
    expect(await readFormBody(post("a=1&b=%C3%A9"), 11)).toEqual({
      ok: false,
      problem: "too_large",
      limit: 11,
    });
    expect(await readJsonBody(post('{"a":[1]}'))).toEqual({ ok: true, value: { a: [1] } });
    expect(await readJsonBody(post('{"a":[1]}'), 8)).toEqual({
      ok: false,
      problem: "too_large",
      limit: 8,
    });
  });

  it("read a body the server already read whole from its bytes, under the same limit", async () => {
    const bytes = new TextEncoder().encode("a=1&b=%C3%A9");
    const read = () =>
      requestWithBody(`${ISSUER}/x`, { method: "POST", headers: new Headers() }, bytes);
    // No stream to read back: the handler gets the bytes themselves.
    expect(read().body).toBeNull();
    expect(await readBodyBytes(read(), 100)).toBe(bytes);
    const form = await readFormBody(read(), 12);
    expect(form.ok && form.value.get("b")).toBe("é");
    expect(await readFormBody(read(), 11)).toEqual({ ok: false, problem: "too_large", limit: 11 });
    await expect(readBodyBytes(read(), 11)).rejects.toBeInstanceOf(BodyTooLargeError);
    // Another Request of the same address and bytes is read from its own (empty) body.
    expect(await readBodyText(new Request(`${ISSUER}/x`, { method: "POST" }))).toBe("");
  });

  it("tell malformed JSON from a JSON value of any shape", async () => {
    for (const broken of ["", "{", "{'a':1}", '{"a":1}x', "\u0000"]) {
      expect(await readJsonBody(post(broken))).toEqual({ ok: false, problem: "malformed" });
    }
    expect(await readJsonBody(post("[1]"))).toEqual({ ok: true, value: [1] });
    expect(await readJsonBody(post("null"))).toEqual({ ok: true, value: null });
  });
});

describe("handlers never act on part of a body", () => {
  it("answers a sign-in form over its limit with 413 and sends no mail", async () => {
    const email = uniqueEmail("oversize");
    const body = `email=${encodeURIComponent(email)}&pad=${"a".repeat(DEFAULT_BODY_LIMIT)}`;
    const response = await handleLoginRequest(
      new Request(`${ISSUER}/login/request`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ISSUER },
        body,
      }),
    );
    expect(response.status).toBe(413);
    expect(await db().outboxMessage.count({ where: { to: email } })).toBe(0);
  });

  it("answers a bulk sync over its limit with a 413 problem the SDK reads", async () => {
    const principal = { tenantId: "00000000-0000-0000-0000-000000000000" } as ApiKeyPrincipal;
    const response = await handleBulkSync(
      principal,
      new Request(`${ISSUER}/api/sync`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: `{"items":[]}${" ".repeat(bodyLimitFor("/api/sync"))}`,
      }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ status: 413, reason: "invalid_request" });
  });
});
