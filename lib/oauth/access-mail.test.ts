import { describe, expect, it, vi } from "vitest";
import { db } from "../db/client";
import { locales } from "../i18n/locales";
import { findLastMessage, mailer } from "../mail";
import { renderAccessGrantedMail } from "../mail/templates/access-granted";
import {
  createTestClient,
  issueCodeForUser,
  mintApiKey,
  newVerifier,
  tokenRequest,
} from "../../test/oauth-fixtures";
import { accessMailsSettled, mailAccessGranted, mailAccessGrantedLater } from "./access-mail";
import { handleTokenRequest } from "./token";

describe("the mail that a partner was granted access", () => {
  it("is sent to the person after the token exchange, names the partner and links /account, which leads back to it", async () => {
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
    expect(mail?.text).toContain(`http://localhost:3000/account?from=${client.partnerId}`);
    expect(mail?.html).toContain(`http://localhost:3000/account?from=${client.partnerId}`);
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

  it("is sent for grants close together in one batch", async () => {
    const client = await createTestClient();
    const people = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const { user } = await mintApiKey(client);
        return user;
      }),
    );
    await db().outboxMessage.deleteMany({ where: { to: { in: people.map((p) => p.email) } } });
    const tenants = await db().tenant.findMany({
      where: { userId: { in: people.map((p) => p.id) } },
    });
    const outbox = mailer();
    if (!outbox.sendMany) throw new Error("the tests' mailer is the local outbox");
    const sendMany = vi.spyOn(outbox as Required<typeof outbox>, "sendMany");
    // Minted more than the quiet window ago, as far as this process remembers.
    const later = Date.now() + 11 * 60_000;
    const realNow = Date.now;
    Date.now = () => later;
    try {
      for (const tenant of tenants) {
        mailAccessGrantedLater({ tenantSubject: tenant.subject, partnerId: client.partnerId });
      }
    } finally {
      Date.now = realNow;
    }
    await accessMailsSettled();
    expect(sendMany).toHaveBeenCalledTimes(1);
    expect(sendMany.mock.calls[0]?.[0].map((mail) => mail.to).sort()).toEqual(
      people.map((person) => person.email).sort(),
    );
    const mails = await db().outboxMessage.findMany({
      where: { to: { in: people.map((person) => person.email) } },
    });
    expect(mails).toHaveLength(5);
    sendMany.mockRestore();
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

  it("is rendered once per language, partner name and link, and each differs where its input does", async () => {
    const input = { locale: "fi", partnerName: "Acme", accountUrl: "https://bank.example/account" };
    const first = await renderAccessGrantedMail({ ...input, locale: "fi" });
    const again = await renderAccessGrantedMail({ ...input, locale: "fi" });
    expect(again).toEqual(first);
    // A caller may change its copy without changing the next one.
    again.subject = "changed";
    expect((await renderAccessGrantedMail({ ...input, locale: "fi" })).subject).toBe(first.subject);
    const renamed = await renderAccessGrantedMail({
      ...input,
      locale: "fi",
      partnerName: "Acme Pro",
    });
    expect(renamed.subject).toContain("Acme Pro");
    const elsewhere = await renderAccessGrantedMail({
      ...input,
      locale: "fi",
      accountUrl: "https://other.example/account",
    });
    expect(elsewhere.text).toContain("https://other.example/account");
    expect(elsewhere.text).not.toContain("https://bank.example/account");
    const german = await renderAccessGrantedMail({ ...input, locale: "de" });
    expect(german.subject).not.toBe(first.subject);
  });
});
