import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MailError } from "./errors";
import { ResendMailer } from "./resend";

/**
 * Resend's HTTP API stand-in: POST /emails answers as the real API does
 * (200 `{ id }`, or an error body `{ statusCode, name, message }`), chosen
 * by the recipient's local part.
 */
interface Received {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

const received: Received[] = [];
let server: Server;
let baseUrl: string;

const ERRORS: Record<string, [number, string]> = {
  invalid: [422, "validation_error"],
  limited: [429, "rate_limit_exceeded"],
  badkey: [403, "invalid_api_key"],
  broken: [500, "internal_server_error"],
};

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void readJson(request).then((body) => {
      received.push({ authorization: request.headers.authorization, body });
      const local = String(body.to).split("@")[0] ?? "";
      const error = ERRORS[local];
      response.setHeader("content-type", "application/json");
      if (request.method !== "POST" || request.url !== "/emails") {
        response.statusCode = 404;
        response.end(JSON.stringify({ statusCode: 404, name: "not_found", message: "no route" }));
      } else if (error) {
        response.statusCode = error[0];
        response.end(JSON.stringify({ statusCode: error[0], name: error[1], message: "refused" }));
      } else {
        response.end(JSON.stringify({ id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794" }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const FROM = "Bank Connect <no-reply@example.com>";
const mailer = (url = baseUrl) =>
  new ResendMailer({ apiKey: "re_test_key", from: FROM, baseUrl: url });
const message = (to: string) => ({
  to,
  subject: "Your sign-in link",
  text: "text part",
  html: "<p>html part</p>",
  link: "https://connect.example/login/link?token=secret-token",
  code: "123456",
});

async function failure(promise: Promise<unknown>): Promise<MailError> {
  const error: unknown = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(MailError);
  return error as MailError;
}

describe("the Resend mailer", () => {
  it("posts sender, recipient, subject, text and HTML with the API key", async () => {
    await mailer().send(message("user@example.com"));
    const last = received.at(-1);
    expect(last?.authorization).toBe("Bearer re_test_key");
    expect(last?.body).toMatchObject({
      from: FROM,
      to: "user@example.com",
      subject: "Your sign-in link",
      text: "text part",
      html: "<p>html part</p>",
    });
    // link and code travel only inside the body, never as fields of their own.
    expect(last?.body).not.toHaveProperty("link");
    expect(last?.body).not.toHaveProperty("code");
  });

  it.each([
    ["invalid@example.com", "rejected"],
    ["limited@example.com", "rate_limited"],
    ["badkey@example.com", "misconfigured"],
    ["broken@example.com", "unavailable"],
  ])("surfaces a refusal for %s as a MailError (%s), never swallowed", async (to, code) => {
    const error = await failure(mailer().send(message(to)));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(/HTTP \d{3}/);
    expect(error.message).not.toContain("secret-token");
  });

  it("surfaces an unreachable provider as unavailable", async () => {
    // Port 1 on loopback: nothing listens, the connection is refused.
    const error = await failure(mailer("http://127.0.0.1:1").send(message("user@example.com")));
    expect(error.code).toBe("unavailable");
  });
});
