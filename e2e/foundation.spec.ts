import { expect, test } from "@playwright/test";

test("the home page renders with a nonce-based CSP and no violations", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(response?.headers()["referrer-policy"]).toBe("same-origin");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // Hydration ran: Next's scripts carried the nonce and were not blocked.
  await expect(page.locator("script[nonce]").first()).toBeAttached();
  expect(violations).toEqual([]);
});

test("the language follows the browser's Accept-Language", async ({ browser }) => {
  const context = await browser.newContext({ locale: "da-DK" });
  const page = await context.newPage();
  await page.goto("/");
  await expect(page.locator("html")).toHaveAttribute("lang", "da");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "Forbind bankkonti med de apps, du stoler på",
  );
  await context.close();
});

test("the discovery document is served to a browser too", async ({ request }) => {
  const response = await request.get("/.well-known/oauth-authorization-server");
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { issuer: string };
  expect(body.issuer).toBe("http://localhost:3100");
});

test("an unknown page is the service's own, translated 404 with no CSP violations", async ({
  browser,
}) => {
  const context = await browser.newContext({ locale: "de-DE" });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Seite nicht gefunden");
  expect(violations).toEqual([]);
  await context.close();
});
