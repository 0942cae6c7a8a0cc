import type { Page } from "@playwright/test";
import {
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createKey,
  exchangeCode,
  newPkce,
  signInByLink,
  type JourneyClient,
} from "./journey";
import type { PartnerApp } from "./partner-app";

/**
 * A new person's first grant to `client` in this tab, the way the hosted flow
 * takes it: the authorize request, sign-in by magic link as `email`, a new
 * key, the sandbox bank, approval with the key (still unlocked in this tab).
 * Waits until the relay has landed at the partner; returns the relayed fields,
 * the PKCE verifier that goes with their code and the key backup's file.
 */
export async function relayFirstGrant(
  page: Page,
  partnerApp: PartnerApp,
  client: JourneyClient,
  email: string,
) {
  const { verifier, challenge } = newPkce();
  const relay = partnerApp.nextRelay();
  await page.goto(authorizePath(client, challenge));
  await signInByLink(page, email);
  const backupPath = await createKey(page);
  await connectSandboxBank(page);
  await approveWithKey(page);
  const relayed = Object.fromEntries(await relay);
  await page.waitForURL(partnerApp.redirectUri);
  return { relayed, verifier, backupPath };
}

/**
 * The first grant (relayFirstGrant), then the partner exchanging the relayed
 * code: returns the relayed fields and the token answer.
 */
export async function grantFirstTime(
  page: Page,
  partnerApp: PartnerApp,
  client: JourneyClient,
  email: string,
) {
  const { relayed, verifier } = await relayFirstGrant(page, partnerApp, client, email);
  const token = await exchangeCode(client, relayed.code ?? "", verifier);
  return { relayed, token };
}
