import { defineConfig, devices } from "@playwright/test";
import { rawSetting } from "./lib/env";
import { CHROMIUM_ARGS, chromiumExecutable } from "./e2e/support/chromium";
import { E2E_ORIGIN, E2E_PORT } from "./e2e/support/origin";

const executablePath = chromiumExecutable();

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: Boolean(rawSetting("CI")),
  reporter: rawSetting("CI") ? [["list"]] : [["list"], ["html", { open: "never" }]],
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: E2E_ORIGIN,
    trace: "retain-on-failure",
    launchOptions: {
      ...(executablePath ? { executablePath } : {}),
      args: CHROMIUM_ARGS,
    },
  },
  projects: [
    { name: "chromium", use: { ...devices["Desktop Chrome"] }, testIgnore: "final/**" },
    {
      // After every journey: checks that spend the machine's rate budget or read
      // what the whole run left behind (the server's captured log).
      name: "final",
      use: { ...devices["Desktop Chrome"] },
      testMatch: "final/**/*.spec.ts",
      dependencies: ["chromium"],
    },
  ],
  webServer: {
    // A production build served against a database of its own (e2e/support/server.ts).
    command: "NODE_ENV=production npx tsx e2e/support/server.ts",
    url: `${E2E_ORIGIN}/healthz`,
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 30_000 },
    env: { E2E_PORT: String(E2E_PORT) },
  },
});
