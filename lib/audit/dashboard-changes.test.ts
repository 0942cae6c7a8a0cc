import { describe, expect, it } from "vitest";
import { generateKeyPair, openJson, recipientKeyFingerprint } from "../crypto/envelope";
import {
  handleCreateClient,
  handleDeleteClient,
  handleRotateClientSecret,
  handleUpdateClient,
} from "../partners/client-api";
import { handleLogoUpload, handlePutBranding } from "../partners/partner-api";
import { handleInstallRecipientKey, handleRecipientKeyChallenge } from "../partners/recipient-key";
import { ISSUER } from "../../test/oauth-fixtures";
import { ownerOf, type TestOwner } from "../../test/partner-owners";
import { PNG } from "../../test/images";
import { eventsFrom, expectNoSecrets, fromAddress, uniqueAddress } from "../../test/audit";

/**
 * Events of an owner's dashboard changes (docs/audit-log.md): each change
 * records exactly one event, as the owner, from the owner's address, for the
 * owner's partner; a change that changes nothing records nothing.
 */

function ownerRequest(
  owner: TestOwner,
  method: string,
  path: string,
  address: string,
  body?: unknown,
) {
  return new Request(`${ISSUER}${path}`, {
    method,
    headers: {
      Cookie: owner.cookie,
      Origin: ISSUER,
      "X-CSRF-Token": owner.csrf,
      ...fromAddress(address),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined
      ? {}
      : { body: body instanceof Buffer ? new Uint8Array(body) : JSON.stringify(body) }),
  });
}

const byOwner = (owner: TestOwner, address: string) => ({
  actorKind: "user",
  actorId: owner.user.id,
  partnerId: owner.partnerId,
  clientIp: address,
});

describe("dashboard change events", () => {
  it("create, rotate, redirect URIs and delete of a client each record one event, never a secret", async () => {
    const owner = await ownerOf();
    const address = uniqueAddress();
    const uri = "https://app.example.com/callback";
    const created = await handleCreateClient(
      ownerRequest(owner, "POST", "/api/partner/clients", address, {
        name: "Budget web",
        redirectUris: [uri],
      }),
    );
    expect(created.status).toBe(201);
    const { clientId, clientSecret } = (await created.json()) as {
      clientId: string;
      clientSecret: string;
    };
    const path = `/api/partner/clients/${clientId}`;
    const rotated = await handleRotateClientSecret(
      ownerRequest(owner, "POST", `${path}/rotate-secret`, address),
      clientId,
    );
    const { clientSecret: newSecret, previousSecretExpiresAt } = (await rotated.json()) as {
      clientSecret: string;
      previousSecretExpiresAt: string;
    };
    const second = "https://app.example.com/second";
    const update = (body: unknown) =>
      handleUpdateClient(ownerRequest(owner, "PATCH", path, address, body), clientId);
    expect((await update({ redirectUris: [second, uri] })).status).toBe(200);
    // A rename, or the same URIs in another order, is not a security event.
    expect((await update({ name: "Budget app", redirectUris: [uri, second] })).status).toBe(200);
    expect((await update({ redirectUris: [second] })).status).toBe(200);
    const remove = () => handleDeleteClient(ownerRequest(owner, "DELETE", path, address), clientId);
    expect((await remove()).status).toBe(204);
    expect((await remove()).status).toBe(404);

    const events = await eventsFrom(address);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ["client.created", { name: "Budget web", redirectUris: [uri] }],
      ["client.secret_rotated", { previousSecretExpiresAt }],
      ["client.redirect_uris_changed", { added: [second], removed: [] }],
      ["client.redirect_uris_changed", { added: [], removed: [uri] }],
      ["client.deleted", { name: "Budget app" }],
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ ...byOwner(owner, address), clientId, subject: null });
    }
    expectNoSecrets(events, [clientSecret, newSecret, owner.csrf, owner.cookie.split("=")[1]]);
  });

  it("a branding save records the names of the fields it changed, nothing when unchanged; a logo upload records logoUrl", async () => {
    const owner = await ownerOf();
    const address = uniqueAddress();
    const put = (body: unknown) =>
      handlePutBranding(ownerRequest(owner, "PUT", "/api/partner/branding", address, body));
    const record = { displayName: "Acme", accentColor: "#0a7d3b", purpose: "Budgets" };
    expect((await put(record)).status).toBe(200);
    expect((await put(record)).status).toBe(200);
    expect((await put({ ...record, purpose: null })).status).toBe(200);
    const uploaded = await handleLogoUpload(
      ownerRequest(owner, "POST", "/api/partner/logo", address, PNG),
    );
    expect(uploaded.status).toBe(200);

    const events = await eventsFrom(address);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ["partner.branding_changed", { fields: ["displayName", "accentColor", "purpose"] }],
      ["partner.branding_changed", { fields: ["purpose"] }],
      ["partner.branding_changed", { fields: ["logoUrl"] }],
    ]);
    for (const event of events) expect(event).toMatchObject(byOwner(owner, address));
  });

  it("installing a decryption key records its fingerprint, replacing one the previous; a replay records nothing", async () => {
    const owner = await ownerOf();
    const address = uniqueAddress();
    const install = async (keys: ReturnType<typeof generateKeyPair>) => {
      const challenge = await handleRecipientKeyChallenge(
        ownerRequest(owner, "POST", "/api/partners/mine/recipient-key/challenge", address, {
          publicKey: keys.publicKeyRawB64,
        }),
      );
      const { envelope } = (await challenge.json()) as { envelope: string };
      const { nonce } = openJson<{ nonce: string }>(keys.privateKeyPkcs8B64, envelope);
      const body = { publicKey: keys.publicKeyRawB64, challengeAnswer: nonce };
      const put = () =>
        handleInstallRecipientKey(
          ownerRequest(owner, "PUT", "/api/partners/mine/recipient-key", address, body),
        );
      expect((await put()).status).toBe(200);
      return { nonce, put };
    };
    const first = generateKeyPair();
    const second = generateKeyPair();
    const { nonce: firstNonce } = await install(first);
    const { nonce: secondNonce, put: replay } = await install(second);
    expect((await replay()).status).toBe(200);

    const events = await eventsFrom(address);
    const firstPrint = recipientKeyFingerprint(first.publicKeyRawB64);
    const secondPrint = recipientKeyFingerprint(second.publicKeyRawB64);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ["partner.recipient_key_installed", { fingerprint: firstPrint, previousFingerprint: null }],
      [
        "partner.recipient_key_installed",
        { fingerprint: secondPrint, previousFingerprint: firstPrint },
      ],
    ]);
    for (const event of events) expect(event).toMatchObject(byOwner(owner, address));
    expectNoSecrets(events, [
      first.privateKeyPkcs8B64,
      second.privateKeyPkcs8B64,
      first.publicKeyRawB64,
      firstNonce,
      secondNonce,
    ]);
  });
});
