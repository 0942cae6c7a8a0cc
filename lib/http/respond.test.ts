import { describe, expect, it } from "vitest";
import { jsonResponse } from "./respond";
import { API_CSP } from "./security-headers";

describe("jsonResponse", () => {
  const headersOf = (response: Response) => Object.fromEntries(response.headers);

  it("answers JSON with the API's Content-Security-Policy and the caller's headers", async () => {
    const response = jsonResponse(
      { a: 1 },
      { status: 201, headers: { "Cache-Control": "no-store" } },
    );
    expect(response.status).toBe(201);
    expect(headersOf(response)).toEqual({
      "cache-control": "no-store",
      "content-security-policy": API_CSP,
      "content-type": "application/json; charset=utf-8",
    });
    expect(await response.json()).toEqual({ a: 1 });
  });

  it("keeps a caller's own policy and always says JSON, whatever the caller's spelling", () => {
    for (const headers of [
      { "content-security-policy": "default-src 'self'", "content-type": "text/plain" },
      new Headers({
        "Content-Security-Policy": "default-src 'self'",
        "Content-Type": "text/plain",
      }),
      [["Content-Security-Policy", "default-src 'self'"]] as [string, string][],
    ]) {
      const response = jsonResponse(null, { headers });
      expect(response.headers.get("content-security-policy")).toBe("default-src 'self'");
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    }
  });

  it("without headers: the JSON type and the API policy only", () => {
    expect(headersOf(jsonResponse([]))).toEqual({
      "content-security-policy": API_CSP,
      "content-type": "application/json; charset=utf-8",
    });
  });
});
