import { expect, test } from "@playwright/test";
import { db } from "../lib/db/client";
import { createPartner } from "../lib/partners/partners";
import { connectJourneyDatabase } from "./support/database";
import { signInByLink, uniqueEmail } from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { checkScreenWidths } from "./support/screen-check";

/**
 * The dashboard's words for a name that looks like another partner's, or
 * that hides an invisible character, next to the field it belongs to, in
 * the person's language; and the security log's note on addresses.
 */

test.describe.configure({ timeout: 180_000 });

/** Letters only, unique per run. */
const word = () =>
  Date.now()
    .toString(36)
    .replace(/\d/g, (digit) => "abcdefghij"[Number(digit)]!);

test("sign-up and branding refuse a look-alike name next to the field, in en and de", async ({
  page,
  context,
}) => {
  connectJourneyDatabase();
  const known = `Harbor ${word()} Bank`;
  await createPartner({ name: known, ownerEmail: uniqueEmail("known") });

  await page.goto("/dashboard");
  await signInByLink(page, uniqueEmail("newcomer"));
  await expect(page.getByRole("heading", { name: "Create your partner" })).toBeVisible();
  const field = page.getByLabel("Partner name");
  const problem = page.locator("#partner-name-problem");

  // Cyrillic а and о in place of the Latin letters.
  await field.fill(known.replaceAll("a", "\u0430").replaceAll("o", "\u043e"));
  await page.getByRole("button", { name: "Create partner" }).click();
  await expect(problem).toHaveText(
    "Partner name: another partner already has this name, or one that looks the same. Choose another.",
  );
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toBeFocused();
  await checkScreenWidths(page, "en-signup-look-alike");

  await field.fill(`${known.slice(0, 3)}\u200b${known.slice(3)}`);
  await page.getByRole("button", { name: "Create partner" }).click();
  await expect(problem).toContainText("contains invisible characters or text-direction marks");

  await context.addCookies([{ name: "bc_locale", value: "de", url: E2E_ORIGIN }]);
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await page.locator("#partner-name").fill(known.toUpperCase());
  await page.getByRole("button", { name: "Partner anlegen" }).click();
  await expect(page.locator("#partner-name-problem")).toContainText(
    "Ein anderer Partner hat diesen Namen bereits oder einen, der genauso aussieht.",
  );
  await checkScreenWidths(page, "de-signup-look-alike");

  // Under a name of its own, its branding may not show the known partner's name either.
  await context.addCookies([{ name: "bc_locale", value: "en", url: E2E_ORIGIN }]);
  await page.reload();
  const own = `Quay ${word()} Money`;
  await page.getByLabel("Partner name").fill(`  ${own.replace(" ", "\u00a0\u00a0")}  `);
  await page.getByRole("button", { name: "Create partner" }).click();
  await expect(page.getByText(`Partner: ${own}`)).toBeVisible();
  await page.locator("#displayName").fill(known.toLowerCase());
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(page.locator("#displayName-problem")).toHaveText(
    "Display name: another partner already has this name, or one that looks the same. Choose another.",
  );
  await expect(page.locator("#displayName")).toHaveAttribute("aria-invalid", "true");
  await checkScreenWidths(page, "en-branding-look-alike");
  await page.locator("#displayName").fill(own.toUpperCase());
  await page.getByRole("button", { name: "Save branding" }).click();
  await expect(page.getByTestId("branding-status")).toHaveText("Branding saved.");
  const partner = await db().partner.findFirstOrThrow({ where: { name: own } });
  expect(partner.displayName).toBe(own.toUpperCase());

  // The security log says whose addresses it shows.
  const log = page.locator("#security-log");
  await expect(log).toContainText(
    "Addresses are shown only for actions of this partner's owners and servers",
  );
  await expect(page.getByTestId("security-log")).toContainText("Branding changed");
  await log.scrollIntoViewIfNeeded();
  await checkScreenWidths(page, "en-security-log-addresses");
  await context.addCookies([{ name: "bc_locale", value: "de", url: E2E_ORIGIN }]);
  await page.reload();
  await expect(page.locator("#security-log")).toContainText(
    "Adressen werden nur bei Aktionen der Inhaber und Server dieses Partners angezeigt",
  );
  await checkScreenWidths(page, "de-security-log-addresses");
});
