import {
  expect,
  type BrowserContext,
  type CDPSession,
  type Page,
  type Route,
} from "@playwright/test";
import { E2E_ORIGIN } from "./origin";

/**
 * A virtual WebAuthn authenticator in Chromium, over the DevTools protocol,
 * standing for the person's phone or password manager in the passkey
 * journeys: a platform authenticator that keeps discoverable passkeys,
 * verifies the person and, unless told otherwise, has the PRF extension
 * (hmac-secret). It belongs to the page it was added to, and lives as long as
 * that page, whatever it navigates to.
 *
 * A credential copied to another authenticator (WebAuthn.getCredentials /
 * addCredential) loses its PRF secret in Chromium: a "new device" with the
 * same synced passkey is the same authenticator with every trace of the
 * service cleared from the browser (`forgetService`).
 */
export interface VirtualAuthenticator {
  cdp: CDPSession;
  readonly authenticatorId: string;
  /** The passkeys it holds. */
  credentials(): Promise<VirtualCredential[]>;
  /**
   * Whether the next ceremonies verify the person: false makes them fail as a
   * closed sheet does (NotAllowedError). Chromium's virtual authenticator
   * keeps refusing after a failed verification, even once set back to true:
   * `renew` it to go on.
   */
  setUserVerified(verified: boolean): Promise<void>;
  /** Another authenticator with the same options in its place, holding no passkeys. */
  renew(): Promise<void>;
  /** Deletes one passkey from the authenticator (the person removed it on their device). */
  removeCredential(credentialId: string): Promise<void>;
  remove(): Promise<void>;
}

export interface VirtualCredential {
  /** base64 (standard, as the protocol gives it). */
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  /** base64 of the user handle. */
  userHandle?: string;
  signCount: number;
}

export async function addVirtualAuthenticator(
  page: Page,
  options: { prf?: boolean; userVerified?: boolean } = {},
): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const add = async () =>
    (
      await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          ctap2Version: "ctap2_1",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: options.userVerified ?? true,
          automaticPresenceSimulation: true,
          hasPrf: options.prf ?? true,
        },
      })
    ).authenticatorId;
  let authenticatorId = await add();
  return {
    cdp,
    get authenticatorId() {
      return authenticatorId;
    },
    credentials: async () =>
      (await cdp.send("WebAuthn.getCredentials", { authenticatorId }))
        .credentials as VirtualCredential[],
    setUserVerified: async (isUserVerified) => {
      await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified });
    },
    renew: async () => {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
      authenticatorId = await add();
    },
    removeCredential: async (credentialId) => {
      await cdp.send("WebAuthn.removeCredential", { authenticatorId, credentialId });
    },
    remove: async () => {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    },
  };
}

/** The base64url credential id the service stores, from the protocol's base64. */
export const toCredentialId = (base64: string) =>
  Buffer.from(base64, "base64").toString("base64url");

/** Puts `page` on the service's own origin (after a relay it is on the partner's). */
export async function onService(page: Page): Promise<void> {
  await page.waitForLoadState();
  if (new URL(page.url()).origin !== E2E_ORIGIN) await page.goto("/");
}

/**
 * A new device of the same person: every cookie, IndexedDB database, local
 * and session storage of the service cleared, the authenticator (the synced
 * passkey) kept.
 */
export async function forgetService(context: BrowserContext, page: Page): Promise<void> {
  // The page may still be moving on (a partner's page forwarding after the relay): a
  // clearing cut short by a navigation is made again on the page it lands on.
  for (let attempt = 1; ; attempt++) {
    try {
      await clearService(context, page);
      break;
    } catch (error) {
      if (attempt === 5 || !/Execution context was destroyed/.test(String(error))) throw error;
    }
  }
  await expect.poll(() => page.evaluate(async () => (await indexedDB.databases()).length)).toBe(0);
}

async function clearService(context: BrowserContext, page: Page): Promise<void> {
  await onService(page);
  await context.clearCookies();
  await page.evaluate(async () => {
    localStorage.clear();
    sessionStorage.clear();
    const databases = await indexedDB.databases();
    await Promise.all(
      databases.map(
        ({ name }) =>
          new Promise<void>((resolve, reject) => {
            if (!name) return resolve();
            const request = indexedDB.deleteDatabase(name);
            request.onsuccess = () => resolve();
            request.onerror = () => reject(request.error);
            request.onblocked = () => resolve();
          }),
      ),
    );
  });
}

/** What this browser keeps of the person's key (IndexedDB "bank-connect", store "keys"). */
export async function storedKeyRecord(page: Page, userId: string): Promise<unknown> {
  return page.evaluate(
    (id) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open("bank-connect");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const database = open.result;
          if (!database.objectStoreNames.contains("keys")) {
            database.close();
            return resolve(null);
          }
          const read = database.transaction("keys").objectStore("keys").get(id);
          read.onsuccess = () => {
            database.close();
            resolve(read.result ?? null);
          };
          read.onerror = () => reject(read.error);
        };
      }),
    userId,
  );
}

/**
 * Chromium's virtual authenticator answers a conditional request (the email
 * field's passkey suggestions) at once, as if the person picked their
 * passkey. To take another way in (the passkey button, or the mail), the
 * sign-in page's first options request, the one for the suggestions, is held
 * unanswered: the email field offers nothing. Later requests go through.
 * Returns the release, to call once the page is left.
 */
export async function holdPasskeyAutofill(page: Page): Promise<() => Promise<void>> {
  const held: Route[] = [];
  await page.route("**/passkeys/sign-in/options", async (route) => {
    if (held.length === 0) {
      held.push(route);
      return;
    }
    await route.continue();
  });
  return async () => {
    await page.unroute("**/passkeys/sign-in/options");
    await Promise.all(held.map((route) => route.abort().catch(() => undefined)));
  };
}
