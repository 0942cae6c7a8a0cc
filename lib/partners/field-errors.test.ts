import { createTranslator } from "next-intl";
import { describe, expect, it } from "vitest";
import { locales } from "../i18n/locales";
import { loadMessages } from "../i18n/messages";
import { MAX_DISPLAY_NAME, MAX_PURPOSE, parseBrandingRecord } from "./branding-record";
import { MAX_CLIENT_NAME, parseClientMetadata } from "./client-api";
import {
  fieldMessage,
  FIELD_LABELS,
  LIMITS,
  requestErrorKey,
  type DashboardForm,
} from "./field-errors";
import { LOGO_MAX_BYTES } from "./logo-fetch";
import { MAX_NAME_LENGTH } from "./names";
import { MAX_REDIRECT_URIS } from "./redirect-uris";
import { VIOLATION_CODES, type FieldViolation } from "./violations";

/** The sentence a screen shows for one violation, as the dashboard builds it. */
async function sentence(
  locale: string,
  form: DashboardForm,
  violation: Pick<FieldViolation, "field" | "code">,
  context: Parameters<typeof fieldMessage>[2] = {},
) {
  const t = createTranslator({
    locale: locale as (typeof locales)[number],
    messages: await loadMessages(locale as (typeof locales)[number]),
    namespace: "Dashboard",
  }) as unknown as (key: string, values?: Record<string, string | number>) => string;
  const message = fieldMessage(form, violation, context);
  return t(`errors.${message.key}`, { ...message.values, field: t(message.label) });
}

describe("field errors in the person's language", () => {
  it("names the field by its label on screen, never by its API name", async () => {
    const parsed = parseBrandingRecord({ accentColor: "blue" }, { registeredDomain: null });
    expect(parsed.ok).toBe(false);
    const [violation] = parsed.ok ? [] : parsed.violations;
    expect(await sentence("en", "branding", violation!)).toBe(
      "Accent colour: enter # and six hex digits, e.g. #1d4ed8.",
    );
    expect(await sentence("de", "branding", violation!)).toBe(
      "Akzentfarbe: Geben Sie # und sechs Hexadezimalziffern ein, z. B. #1d4ed8.",
    );
    for (const locale of locales) {
      expect(await sentence(locale, "branding", violation!)).not.toContain("accentColor");
    }
  });

  it("quotes the refused redirect URI and the limits the rules enforce", async () => {
    const parsed = parseClientMetadata(
      { name: "x".repeat(81), redirectUris: ["https://a.example/cb", "http://budget.example/cb"] },
      "create",
    );
    const violations = parsed.ok ? [] : parsed.violations;
    const context = { redirectUris: ["https://a.example/cb", "http://budget.example/cb"] };
    const texts = await Promise.all(
      violations.map((violation) => sentence("en", "client", violation, context)),
    );
    expect(texts).toEqual([
      "Name: at most 80 characters.",
      "Redirect URIs: http://budget.example/cb may use http:// only on localhost; use https://.",
    ]);
    expect(fieldMessage("client", violations[1]!, context).input).toBe("redirectUris");
  });

  it("names a partner name another partner has, or one like it, and invisible characters", async () => {
    expect(await sentence("en", "signup", { field: "name", code: "taken" })).toBe(
      "Partner name: another partner already has this name, or one that looks the same. Choose another.",
    );
    expect(await sentence("de", "branding", { field: "displayName", code: "taken" })).toBe(
      "Anzeigename: Ein anderer Partner hat diesen Namen bereits oder einen, der genauso aussieht. Wählen Sie einen anderen.",
    );
    expect(await sentence("en", "signup", { field: "name", code: "invisible" })).toBe(
      "Partner name: contains invisible characters or text-direction marks (for example a zero-width space copied with the text). Type it again.",
    );
    for (const locale of locales) {
      const text = await sentence(locale, "branding", { field: "displayName", code: "invisible" });
      expect(text, locale).not.toContain("displayName");
      expect(fieldMessage("branding", { field: "displayName", code: "invisible" }).key).toBe(
        "invisible",
      );
    }
  });

  it("keeps the quoted limits equal to the rules' own", () => {
    expect(LIMITS).toEqual({
      displayName: MAX_DISPLAY_NAME,
      purpose: MAX_PURPOSE,
      url: 2048,
      clientName: MAX_CLIENT_NAME,
      partnerName: MAX_NAME_LENGTH,
      redirectUris: MAX_REDIRECT_URIS,
      logoKiB: LOGO_MAX_BYTES / 1024,
    });
  });

  it("has a sentence and a label in every locale for every code of every field", async () => {
    for (const locale of locales) {
      const messages = (await loadMessages(locale)) as { Dashboard: Record<string, unknown> };
      const lookup = (key: string) =>
        key
          .split(".")
          .reduce<unknown>(
            (node, part) => (node as Record<string, unknown>)?.[part],
            messages.Dashboard,
          );
      for (const form of Object.keys(FIELD_LABELS) as DashboardForm[]) {
        for (const field of Object.keys(FIELD_LABELS[form])) {
          for (const code of VIOLATION_CODES) {
            const message = fieldMessage(form, { field, code });
            expect(typeof lookup(`errors.${message.key}`), `${locale} ${message.key}`).toBe(
              "string",
            );
            expect(typeof lookup(message.label), `${locale} ${message.label}`).toBe("string");
          }
        }
      }
      for (const [status, error] of [
        [401, "login_required"],
        [403, "csrf"],
        [409, "key_changed"],
        [403, "signup_closed"],
        [429, undefined],
        [0, undefined],
        [500, "server_error"],
      ] as const) {
        const key = requestErrorKey(status, error);
        expect(typeof lookup(`errors.request.${key}`), `${locale} ${key}`).toBe("string");
      }
    }
  });
});
