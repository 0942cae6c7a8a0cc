import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  formatSecret,
  newSecretBytes,
  openSecret,
  sealSecret,
  signedHeaders,
  signingKeys,
  WEBHOOK_SECRET_OVERLAP_MS,
} from "./signing";

/**
 * Our signatures checked by the maintained Standard Webhooks library
 * (`standardwebhooks` on npm), as a partner's receiver would check them.
 */

const body = JSON.stringify({
  type: "access.ended",
  timestamp: "2026-11-27T14:00:00.000Z",
  data: { client_id: "obc_demo", user: "wl:p:connect:x", reason: "person" },
});

describe("webhook signing", () => {
  it("a secret is whsec_ and the base64 of 32 random bytes", () => {
    const secret = formatSecret(newSecretBytes());
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(formatSecret(newSecretBytes())).not.toBe(secret);
  });

  it("standardwebhooks verifies our signature, and a wrong secret or a changed body fails", () => {
    const key = newSecretBytes();
    const headers = signedHeaders([key], "msg_abc", body);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    expect(new Webhook(formatSecret(key)).verify(body, { ...headers })).toEqual(JSON.parse(body));

    const wrong = new Webhook(formatSecret(newSecretBytes()));
    expect(() => wrong.verify(body, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(formatSecret(key)).verify(`${body} `, { ...headers })).toThrow(
      WebhookVerificationError,
    );
    const otherId = { ...headers, "webhook-id": "msg_other" };
    expect(() => new Webhook(formatSecret(key)).verify(body, otherId)).toThrow(
      WebhookVerificationError,
    );
  });

  it("during a rotation both secrets sign: a receiver holding either one verifies", () => {
    const oldKey = newSecretBytes();
    const newKey = newSecretBytes();
    const headers = signedHeaders([newKey, oldKey], "msg_rot", body);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    for (const key of [oldKey, newKey]) {
      expect(new Webhook(formatSecret(key)).verify(body, { ...headers })).toEqual(JSON.parse(body));
    }
    expect(() => new Webhook(formatSecret(newSecretBytes())).verify(body, { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  it("the key bytes are sealed under SECRET_KEY, bound to their endpoint", () => {
    const key = newSecretBytes();
    const sealed = sealSecret("endpoint-a", key);
    expect(sealed).not.toContain(key.toString("base64"));
    expect(openSecret("endpoint-a", sealed)?.equals(key)).toBe(true);
    expect(openSecret("endpoint-b", sealed)).toBeNull();
  });

  it("the previous secret signs until its 24 hours are over, then only the new one", () => {
    const id = "endpoint-rot";
    const [oldKey, newKey] = [newSecretBytes(), newSecretBytes()];
    const rotatedAt = new Date();
    const endpoint = {
      id,
      secretSealed: sealSecret(id, newKey),
      previousSecretSealed: sealSecret(id, oldKey),
      previousSecretExpiresAt: new Date(rotatedAt.getTime() + WEBHOOK_SECRET_OVERLAP_MS),
    };
    const during = signingKeys(endpoint, new Date(rotatedAt.getTime() + 23 * 3600_000));
    expect(during.map((key) => key.toString("hex"))).toEqual([
      newKey.toString("hex"),
      oldKey.toString("hex"),
    ]);
    const after = signingKeys(endpoint, new Date(rotatedAt.getTime() + 25 * 3600_000));
    expect(after.map((key) => key.toString("hex"))).toEqual([newKey.toString("hex")]);
  });
});
