import { existsSync, readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { describeLeaks, scanLog } from "../support/log-scan";
import { readSecretsSeen, SERVER_LOG } from "../support/secrets-seen";

/**
 * No secret, key, code or bank data in logs (docs/security.md). Runs after every
 * journey: the server's captured output is scanned for each secret value the
 * journeys handled and for the shapes of keys, secrets, private keys and IBANs.
 */

test("the scanner reports a planted leak by kind and line, never the whole value", () => {
  const planted = {
    key: `ebk_${"Q".repeat(43)}`,
    secret: `obs_${"s".repeat(43)}`,
    pin: "493817",
    iban: "DK5000400440116243",
  };
  const log = [
    '{"level":"info","event":"fine"}',
    `{"event":"oops","key":"${planted.key}","secret":"${planted.secret}"}`,
    `code was ${planted.pin}; iban ${planted.iban}; jwk {"kty":"EC","d":"abc"}`,
    "-----BEGIN PRIVATE KEY-----",
    "a timestamp 14938170 does not contain the code on its own",
  ].join("\n");
  const leaks = scanLog(log, [{ kind: "pin", value: planted.pin }]);
  const report = describeLeaks(leaks);
  expect(leaks.map((leak) => [leak.line, leak.what])).toEqual([
    [2, "an API key (ebk_…)"],
    [2, "a client secret in clear (obs_…)"],
    [3, "a recorded pin"],
    [3, "a JWK private part"],
    [3, "an IBAN"],
    [4, "a PEM block"],
  ]);
  for (const value of Object.values(planted)) expect(report).not.toContain(value);
});

test("the server's log holds no secret, key, code or bank data the journeys saw", () => {
  expect(existsSync(SERVER_LOG), SERVER_LOG).toBe(true);
  const log = readFileSync(SERVER_LOG, "utf8");
  // Not vacuous: the log is the live server's, with the lines a journey produces.
  expect(log).toContain("[e2e] serving");
  expect(log).toContain('"event":"login.challenge_sent"');
  const seen = readSecretsSeen();
  const kinds = new Set(seen.map((secret) => secret.kind));
  for (const kind of [
    "api key",
    "client secret",
    "authorization code",
    "pin",
    "magic-link token",
  ]) {
    expect(kinds, `the journeys recorded no ${kind}`).toContain(kind);
  }
  expect(describeLeaks(scanLog(log, seen))).toBe("");
});
