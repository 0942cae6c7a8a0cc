import { describe, expect, it, vi } from "vitest";
import { db } from "../db/client";
import { locales } from "../i18n/locales";
import { findLastMessage } from "../mail";
import { renderAccessGrantedMail } from "../mail/templates/access-granted";
import {
  createTestClient,
  issueCodeForUser,
  mintApiKey,
  newVerifier,
  tokenRequest,
} from "../../test/oauth-fixtures";
import { accessMailsSettled, mailAccessGranted } from "./access-mail";
import { handleTokenRequest } from "./token";

describe("the mail that a partner was granted access", () => {
  it("is sent to the person after the token exchange, names the partner and links /account", async () => {
    const client = await createTestClient();
    await db().partner.update({
      where: { id: client.partnerId ?? "" },
      data: { displayName: "Budget <Buddy>" },
    });
    const { user } = await mintApiKey(client);
    // The exchange sends it in the background; it lands in the outbox shortly after.
    await vi.waitFor(async () => expect(await findLastMessage(user.email)).not.toBeNull());
    const mail = await findLastMessage(user.email);
    expect(mail?.subject).toBe("Budget <Buddy> can now read your bank data");
    expect(mail?.text).toContain("http://localhost:3000/account");
    expect(mail?.html).toContain("Budget &lt;Buddy&gt;");
    expect(mail?.html).not.toContain("Budget <Buddy>");
    expect(mail?.code).toBeNull();
  });

  it("is sent once when the same partner is granted access again minutes later", async () => {
    const client = await createTestClient();
    const { user } = await mintApiKey(client);
    const verifier = newVerifier();
    const { code } = await issueCodeForUser(client, verifier, user.id);
    const again = await handleTokenRequest(tokenRequest(client, code, verifier));
    expect(again.status).toBe(200);
    await accessMailsSettled();
    const mails = await db().outboxMessage.findMany({ where: { to: user.email } });
    expect(mails.filter((mail) => mail.link === null)).toHaveLength(1);
  });

  it("speaks the person's language", async () => {
    const client = await createTestClient();
    const { user } = await mintApiKey(client);
    // The exchange's own mail first, so that it cannot land after the one sent here.
    await vi.waitFor(async () => expect(await findLastMessage(user.email)).not.toBeNull());
    await db().user.update({ where: { id: user.id }, data: { locale: "de" } });
    const tenant = await db().tenant.findFirstOrThrow({ where: { userId: user.id } });
    await mailAccessGranted({ tenantSubject: tenant.subject, partnerId: client.partnerId });
    const mail = await findLastMessage(user.email);
    expect(mail?.subject).toBe("Acme Budget kann jetzt Ihre Bankdaten lesen");
  });

  it("exists in every language, each with the link", async () => {
    for (const locale of locales) {
      const mail = await renderAccessGrantedMail({
        locale,
        partnerName: "Acme",
        accountUrl: "https://bank.example/account",
      });
      expect(mail.subject).toContain("Acme");
      expect(mail.text).toContain("https://bank.example/account");
      expect(mail.html).toContain(`lang="${locale}"`);
    }
  });
});
