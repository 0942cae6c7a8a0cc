import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { setSetting } from "../env";
import { findActiveApiKey } from "../keys/api-keys";
import { findSessionUser } from "../auth/sessions";
import { authenticateClient } from "../oauth/client-auth";
import {
  createTestClient,
  createTestUser,
  mintApiKey,
  signedInCookie,
} from "../../test/oauth-fixtures";
import { keyedHash, keyedHashCandidates, matchesKeyedHash } from "./keyed-hash";

/**
 * Rotating SECRET_KEY (docs/operations.md): what was issued under the old
 * secret keeps working while SECRET_KEY_PREVIOUS names it, and stops once it
 * is removed; what is issued during the rotation uses the new secret.
 */

const OLD = `old-${randomBytes(24).toString("hex")}`;
const NEW = `new-${randomBytes(24).toString("hex")}`;

function useSecrets(current: string, previous?: string) {
  setSetting("SECRET_KEY", current);
  setSetting("SECRET_KEY_PREVIOUS", previous ?? "");
}

afterEach(() => useSecrets(OLD));

describe("SECRET_KEY rotation", () => {
  it("an API key minted under the old secret works with SECRET_KEY_PREVIOUS set, and stops when it is removed", async () => {
    useSecrets(OLD);
    const client = await createTestClient();
    const { key: oldKey } = await mintApiKey(client);
    expect(await findActiveApiKey(oldKey)).not.toBeNull();

    useSecrets(NEW, OLD);
    expect((await findActiveApiKey(oldKey))?.clientId).toBe(client.clientId);
    // The client secret, hashed under the old secret, still authenticates; a key minted now uses the new one.
    const { key: newKey } = await mintApiKey(client);
    expect((await findActiveApiKey(newKey))?.clientId).toBe(client.clientId);

    useSecrets(NEW);
    expect(await findActiveApiKey(oldKey)).toBeNull();
    expect((await findActiveApiKey(newKey))?.clientId).toBe(client.clientId);
    await expect(
      authenticateClient({
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        method: "client_secret_basic",
      }),
    ).rejects.toMatchObject({ code: "invalid_client" });
  });

  it("a browser session of the old secret lasts through the rotation, not after it", async () => {
    useSecrets(OLD);
    const user = await createTestUser();
    const token = (await signedInCookie(user.id)).split("=").slice(1).join("=");
    useSecrets(NEW, OLD);
    expect((await findSessionUser(token))?.userId).toBe(user.id);
    useSecrets(NEW);
    expect(await findSessionUser(token)).toBeNull();
  });

  it("compares under both secrets, current first, and refuses any other secret's hash", () => {
    const secrets = { secretKey: NEW, previousSecretKey: OLD };
    const underOld = keyedHash("api-key", "ebk_x", OLD);
    const underNew = keyedHash("api-key", "ebk_x", NEW);
    expect(keyedHashCandidates("api-key", "ebk_x", secrets)).toEqual([underNew, underOld]);
    expect(keyedHashCandidates("api-key", "ebk_x", { secretKey: NEW })).toEqual([underNew]);
    expect(matchesKeyedHash("api-key", "ebk_x", underOld, secrets)).toBe(true);
    expect(matchesKeyedHash("api-key", "ebk_x", underNew, secrets)).toBe(true);
    expect(matchesKeyedHash("api-key", "ebk_x", underOld, { secretKey: NEW })).toBe(false);
    const third = keyedHash("api-key", "ebk_x", "z".repeat(40));
    expect(matchesKeyedHash("api-key", "ebk_x", third, secrets)).toBe(false);
    // Another purpose's hash, or a malformed stored value, never matches.
    expect(matchesKeyedHash("pin", "ebk_x", underNew, secrets)).toBe(false);
    expect(matchesKeyedHash("api-key", "ebk_x", "short", secrets)).toBe(false);
  });
});
