import { rawSetting } from "../../lib/env";

/**
 * Where the journeys' own server listens (not the dev server's 3000). E2E_PORT
 * moves it, so two checkouts on one machine can run their journeys at once.
 */
export const E2E_PORT = Number(rawSetting("E2E_PORT") ?? 3100);
export const E2E_ORIGIN = `http://localhost:${E2E_PORT}`;
