import { describe, expect, it } from "vitest";
import { locales } from "../../i18n/locales";
import { escapeHtml } from "../../http/html";
import { renderLoginMail } from "./login";

const LINK = "http://localhost:3000/login/link?token=AbC_dEf-123";
const base = { link: LINK, code: "042917", expiresInMinutes: 15 } as const;

describe("the sign-in mail", () => {
  it("names the partner and carries the link, the code and the expiry (en)", async () => {
    const mail = await renderLoginMail({ ...base, locale: "en", partnerName: "Acme Budget" });
    expect(mail.subject).toBe("Your sign-in link and code for Acme Budget");
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain("Sign in to continue to Acme Budget.");
      expect(part).toContain("042917");
      expect(part).toContain("valid for 15 minutes");
      expect(part).toContain("ignore this email");
    }
    expect(mail.text).toContain(`\n${LINK}\n`);
    expect(mail.html).toContain(`<a href="${LINK}"`);
    expect(mail.html).toContain('<html lang="en">');
  });

  it("speaks the flow's language (de)", async () => {
    const mail = await renderLoginMail({ ...base, locale: "de", partnerName: "Acme Budget" });
    expect(mail.subject).toBe("Ihr Anmeldelink und Code für Acme Budget");
    expect(mail.text).toContain("um mit Acme Budget fortzufahren");
    expect(mail.text).toContain("15 Minuten lang gültig");
    expect(mail.text).toContain("042917");
    expect(mail.text).toContain(LINK);
    expect(mail.html).toContain('<html lang="de">');
  });

  it("uses the plural rules of each language", async () => {
    const one = await renderLoginMail({
      ...base,
      expiresInMinutes: 1,
      locale: "en",
      partnerName: null,
    });
    expect(one.text).toContain("valid for 1 minute and");
    const pl = await renderLoginMail({
      ...base,
      expiresInMinutes: 15,
      locale: "pl",
      partnerName: null,
    });
    expect(pl.text).toContain("15 minut");
  });

  it("falls back to the service's name without a partner", async () => {
    const mail = await renderLoginMail({ ...base, locale: "fr", partnerName: null });
    expect(mail.subject).toBe("Votre lien et votre code de connexion pour Bank Connect");
  });

  it("renders in every locale with the code, the link and the partner", async () => {
    for (const locale of locales) {
      const mail = await renderLoginMail({ ...base, locale, partnerName: "Zeta Money" });
      expect(mail.subject, locale).toContain("Zeta Money");
      expect(mail.text, locale).toContain("Zeta Money");
      expect(mail.text, locale).toContain("042917");
      expect(mail.text, locale).toContain(LINK);
      expect(mail.text, locale).toContain("15");
      expect(mail.html, locale).toContain("Zeta Money");
    }
  });

  it("escapes a hostile partner name in the HTML and keeps the subject on one line", async () => {
    const hostile = `Evil <script>alert("x")</script> & 'Co'\r\nBcc: victim@example.com`;
    const mail = await renderLoginMail({ ...base, locale: "en", partnerName: hostile });
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).toContain(
      "Evil &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;",
    );
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.subject).toContain("'Co' Bcc: victim@example.com");
    // The text part is plain text: shown as typed, nothing to escape.
    expect(mail.text).toContain(`Evil <script>alert("x")</script> & 'Co'`);
  });

  it("escapes the link in its attribute", async () => {
    const mail = await renderLoginMail({
      ...base,
      link: 'http://localhost:3000/x?a=1&b="2"',
      locale: "en",
      partnerName: null,
    });
    expect(mail.html).toContain('href="http://localhost:3000/x?a=1&amp;b=&quot;2&quot;"');
  });

  it("escapes the five HTML-significant characters", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
    );
  });
});
