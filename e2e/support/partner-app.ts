import { createServer, type Server } from "node:http";
import { test } from "@playwright/test";
import { findFreePort } from "../../scripts/lib/embedded-postgres";
import { recordSecret } from "./secrets-seen";

/**
 * A stand-in partner application: a real HTTP server on loopback that
 * receives the form_post relay (/docs/relay) at /callback and remembers the
 * fields in the order they arrived.
 */
export interface PartnerApp {
  redirectUri: string;
  /** Resolves with the next relay the app receives. */
  nextRelay(): Promise<[string, string][]>;
  close(): Promise<void>;
}

export async function startPartnerApp(): Promise<PartnerApp> {
  const port = await findFreePort();
  const waiting: ((fields: [string, string][]) => void)[] = [];
  const received: [string, string][][] = [];

  const server: Server = createServer((request, response) => {
    if (request.method !== "POST" || request.url !== "/callback") {
      response.writeHead(404).end();
      return;
    }
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const fields = [...new URLSearchParams(body).entries()];
      for (const [name, value] of fields) {
        if (name === "code") recordSecret("authorization code", value);
        if (name === "privateKey") recordSecret("private key", value);
      }
      const waiter = waiting.shift();
      if (waiter) waiter(fields);
      else received.push(fields);
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end("<!doctype html><title>Partner app</title><h1>Relay received</h1>");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));

  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    nextRelay: () =>
      new Promise((resolve) => {
        const ready = received.shift();
        if (ready) resolve(ready);
        else waiting.push(resolve);
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** One partner app for the spec file: started before its tests, closed after them. */
export function partnerAppForSpec(): () => PartnerApp {
  let app: PartnerApp | undefined;
  test.beforeAll(async () => {
    app = await startPartnerApp();
  });
  test.afterAll(async () => app?.close());
  return () => {
    if (!app) throw new Error("the partner app starts in beforeAll");
    return app;
  };
}
