import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { childEnv, getEnv, setSetting } from "../env";
import { log } from "../log";
import {
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../test/fake-enable-banking";
import { ISSUER } from "../../test/oauth-fixtures";
import { startServiceServer, type RunningServiceServer } from "../../test/service-server";
import {
  bankApplicationCheckSettled,
  bankApplicationWarnings,
  CHECK_INTERVAL_MS,
  resetBankApplicationChecks,
  startBankApplicationChecks,
} from "./application-check";
import { RETRY_POLICY } from "./enable-banking/client";

/**
 * The Enable Banking application's setup, checked at start against the local
 * fake over HTTP (its GET /application lists `redirect_urls`), shown on
 * /healthz through the service's own HTTP server, and asked by the admin CLI.
 */

const APPLICATION_ID = "app-setup-check";
const CALLBACK = `${ISSUER}/banks/callback`;
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const keys = applicationKeyPair();

let fake: FakeEnableBanking;
let server: RunningServiceServer;

beforeAll(async () => {
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
  setSetting("ENABLE_BANKING_API_URL", fake.url);
  setSetting("ENABLE_BANKING_APPLICATION_ID", APPLICATION_ID);
  setSetting("ENABLE_BANKING_PRIVATE_KEY", keys.privateKey);
  server = await startServiceServer();
});

afterAll(async () => {
  await server.close();
  await fake.close();
  setSetting("UPSTREAM", "");
});

beforeEach(() => {
  setSetting("UPSTREAM", "enablebanking");
  fake.applicationActive = true;
  fake.redirectUrls = [];
  resetBankApplicationChecks();
});

afterEach(() => vi.restoreAllMocks());

async function health() {
  const response = await fetch(`${server.origin}/healthz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Runs the check that /healthz starts once the last one is older than CHECK_INTERVAL_MS. */
async function checkAgainLater() {
  bankApplicationWarnings(Date.now() + CHECK_INTERVAL_MS + 1);
  await bankApplicationCheckSettled();
}

describe("the check at start", () => {
  it("warns when {ISSUER}/banks/callback is not a registered redirect URL; /healthz lists it and stays 200", async () => {
    fake.redirectUrls = ["https://connect.example.com/banks/callback", `${CALLBACK}/`];
    const warn = vi.spyOn(log, "warn");
    startBankApplicationChecks();
    await bankApplicationCheckSettled();

    expect(fake.requests.at(-1)?.path).toBe("/application");
    expect(warn).toHaveBeenCalledWith(
      "bank_application.callback_not_registered",
      expect.objectContaining({
        callbackUrl: CALLBACK,
        registeredRedirectUrls: ["https://connect.example.com/banks/callback", `${CALLBACK}/`],
      }),
    );
    expect(await health()).toEqual({
      status: 200,
      body: { status: "ok", database: "ok", warnings: ["bank_callback_not_registered"] },
    });
  });

  it("clears the warning once the URL is registered, without a restart", async () => {
    startBankApplicationChecks();
    await bankApplicationCheckSettled();
    expect((await health()).body.warnings).toEqual(["bank_callback_not_registered"]);

    fake.redirectUrls = [CALLBACK];
    const info = vi.spyOn(log, "info");
    // Within the interval the last answer stands and the aggregator is not asked again.
    const asked = fake.requests.length;
    expect(bankApplicationWarnings()).toEqual(["bank_callback_not_registered"]);
    expect(fake.requests.length).toBe(asked);
    await checkAgainLater();
    expect(info).toHaveBeenCalledWith("bank_application.ready", { callbackUrl: CALLBACK });
    expect(await health()).toEqual({ status: 200, body: { status: "ok", database: "ok" } });
  });

  it("warns about an inactive application too", async () => {
    fake.applicationActive = false;
    fake.redirectUrls = [CALLBACK];
    startBankApplicationChecks();
    await bankApplicationCheckSettled();
    expect((await health()).body.warnings).toEqual(["bank_application_inactive"]);
  });

  it("keeps the last answer when Enable Banking cannot be asked, and says so in the log", async () => {
    startBankApplicationChecks();
    await bankApplicationCheckSettled();
    const warn = vi.spyOn(log, "warn");
    for (let i = 0; i < RETRY_POLICY.attempts; i += 1) fake.script.push({ status: 503 });
    fake.redirectUrls = [CALLBACK];
    await checkAgainLater();
    expect(warn).toHaveBeenCalledWith("bank_application.unchecked", { reason: "transient" });
    expect((await health()).body.warnings).toEqual(["bank_callback_not_registered"]);
  });

  it("does not run with the sandbox, which needs no setup", async () => {
    setSetting("UPSTREAM", "sandbox");
    const asked = fake.requests.length;
    startBankApplicationChecks();
    await bankApplicationCheckSettled();
    expect(fake.requests.length).toBe(asked);
    expect(await health()).toEqual({ status: 200, body: { status: "ok", database: "ok" } });
  });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run admin -- bank check` as an operator runs it: a child process, here against the fake. */
function bankCheck(): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/admin.ts", "bank", "check"],
      {
        cwd: REPO_ROOT,
        env: childEnv({ DATABASE_URL: getEnv().databaseUrl, UPSTREAM: "enablebanking" }),
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("npm run admin -- bank check", () => {
  it("names the callback URL to register, then reports ok once it is registered", async () => {
    fake.redirectUrls = ["https://connect.example.com/banks/callback"];
    const missing = await bankCheck();
    expect(missing.stderr).toBe("");
    expect(missing.code).toBe(0);
    expect(JSON.parse(missing.stdout)).toMatchObject({
      ok: false,
      upstream: "enablebanking",
      callback_url: CALLBACK,
      application_active: true,
      registered_redirect_urls: ["https://connect.example.com/banks/callback"],
      callback_registered: false,
      problems: [
        `callback_not_registered: register ${CALLBACK} as a redirect URL of the Enable Banking application: until then every consent start fails`,
      ],
    });

    fake.redirectUrls = ["https://connect.example.com/banks/callback", CALLBACK];
    const registered = await bankCheck();
    expect(JSON.parse(registered.stdout)).toMatchObject({
      ok: true,
      callback_registered: true,
      problems: [],
    });
  });

  it("says when the application is inactive", async () => {
    fake.applicationActive = false;
    fake.redirectUrls = [CALLBACK];
    const run = await bankCheck();
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      application_active: false,
      callback_registered: true,
      problems: [expect.stringMatching(/^application_inactive: /)],
    });
  });
});
