import { existsSync } from "node:fs";
import { rawSetting } from "../../lib/env";

/**
 * The browser for the journeys: CHROMIUM_PATH when set, else Debian's
 * /usr/bin/chromium when installed, else Playwright's own download
 * (`npx playwright install chromium` on a workstation).
 */
export function chromiumExecutable(): string | undefined {
  const configured = rawSetting("CHROMIUM_PATH");
  if (configured) return configured;
  return existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined;
}

/** Flags for a headless Chromium in a container running as root, offline. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
