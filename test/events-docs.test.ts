import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  VERIFY_NODE,
  VERIFY_PYTHON,
  VERIFY_PYTHON_LIBRARY,
  WEBHOOK_PAYLOAD_EXAMPLE,
} from "../lib/docs/webhook-snippets";
import { formatSecret, newSecretBytes, signedHeaders } from "../lib/webhooks/signing";

/**
 * The events page's verification snippets (docs/events.md#verifying-a-signature,
 * the same text on /docs/events), run as written: the Node one with the `standardwebhooks` library it
 * installs, the Python one with python3's standard library, each on a
 * delivery signed as the service signs it (lib/webhooks/signing.ts).
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const DOC = readFileSync(path.join(ROOT, "docs/events.md"), "utf8");
// Inside node_modules, so that the snippet's import resolves as in a partner's project.
const WORK = path.join(ROOT, "node_modules/.cache/events-docs", String(process.pid));

afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(WORK, { recursive: true, force: true });
});

/** The `nth` fenced block of `language` after `heading`. */
function snippet(heading: string, language: string, nth = 0): string {
  let from = DOC.indexOf(`\n${heading}\n`);
  expect(from, heading).toBeGreaterThan(-1);
  const fence = "```";
  let start = -1;
  for (let index = 0; index <= nth; index += 1) {
    start = DOC.indexOf(`${fence}${language}\n`, from);
    from = start + 1;
  }
  const end = DOC.indexOf(`\n${fence}`, start + 1);
  return DOC.slice(start + fence.length + language.length + 1, end + 1);
}

it("the events page shows the same code as docs/events.md", () => {
  expect(snippet("## Payload", "json")).toBe(WEBHOOK_PAYLOAD_EXAMPLE);
  expect(snippet("### Node", "ts")).toBe(VERIFY_NODE);
  expect(snippet("### Python", "python")).toBe(VERIFY_PYTHON);
  expect(snippet("### Python", "python", 1)).toBe(VERIFY_PYTHON_LIBRARY);
});

const body = JSON.stringify({
  type: "connection.expiring",
  timestamp: "2026-11-27T14:00:00.000Z",
  data: {
    client_id: "obc_docs",
    user: "subject",
    connection_id: "8f0c2d4e-5b7a-4c1e-9d3f-2a6b8c0e1f47",
    account_ids: ["0b5e7c9a-1d3f-4a6b-8c0e-2f4a6b8d0c1e"],
    valid_until: "2026-12-04T09:12:00.000Z",
  },
});

describe("the events page's Node snippet", () => {
  it("verifies the service's signature with standardwebhooks, and refuses a forged one", async () => {
    const key = newSecretBytes();
    // The snippet reads its secret from the environment, as a receiver would.
    vi.stubEnv("WEBHOOK_SECRET", formatSecret(key));
    mkdirSync(WORK, { recursive: true });
    const file = path.join(WORK, "verify.ts");
    writeFileSync(file, VERIFY_NODE);
    const { verifiedEvent } = (await import(file)) as {
      verifiedEvent: (body: string, headers: Record<string, string>) => unknown;
    };
    const headers = { ...signedHeaders([key], "msg_docs", body) };
    expect(verifiedEvent(body, headers)).toEqual(JSON.parse(body));
    // During a rotation the old and the new secret both sign: the old one still verifies.
    const rotated = { ...signedHeaders([newSecretBytes(), key], "msg_docs", body) };
    expect(verifiedEvent(body, rotated)).toEqual(JSON.parse(body));

    expect(() => verifiedEvent(body.replace("obc_docs", "obc_evil"), headers)).toThrow();
    const forged = { ...signedHeaders([newSecretBytes()], "msg_docs", body) };
    expect(() => verifiedEvent(body, forged)).toThrow();
    const old = { ...signedHeaders([key], "msg_docs", body, new Date(Date.now() - 10 * 60_000)) };
    expect(() => verifiedEvent(body, old)).toThrow();
  });
});

describe("the events page's Python snippet (standard library)", () => {
  const run = (secret: string, sent: string, headers: Record<string, string>) => {
    const driver = `${VERIFY_PYTHON}
import sys
given = json.loads(sys.stdin.read())
try:
    print(json.dumps(verified_event(given["secret"], given["body"].encode(), given["headers"])))
except ValueError as error:
    print(json.dumps({"refused": str(error)}))
`;
    const out = execFileSync("python3", ["-c", driver], {
      input: JSON.stringify({ secret, body: sent, headers }),
    });
    return JSON.parse(out.toString()) as unknown;
  };

  it("verifies the service's signature, and refuses a changed body, a wrong secret, an old delivery", () => {
    const key = newSecretBytes();
    const headers = { ...signedHeaders([key], "msg_py", body) };
    expect(run(formatSecret(key), body, headers)).toEqual(JSON.parse(body));
    const rotated = { ...signedHeaders([newSecretBytes(), key], "msg_py", body) };
    expect(run(formatSecret(key), body, rotated)).toEqual(JSON.parse(body));

    expect(run(formatSecret(key), `${body} `, headers)).toEqual({
      refused: "no valid signature",
    });
    expect(run(formatSecret(newSecretBytes()), body, headers)).toEqual({
      refused: "no valid signature",
    });
    const old = { ...signedHeaders([key], "msg_py", body, new Date(Date.now() - 10 * 60_000)) };
    expect(run(formatSecret(key), body, old)).toEqual({ refused: "timestamp too far from now" });
  });
});
