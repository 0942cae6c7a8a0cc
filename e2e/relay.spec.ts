import { expect, test } from "@playwright/test";
import { E2E_ORIGIN } from "./support/origin";

const CALLBACK = `${E2E_ORIGIN}/demo/callback`;
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

function authorizeUrl(overrides: Record<string, string>) {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: "obc_demo_budget_app",
    redirect_uri: CALLBACK,
    scope: "accounts.read",
    state: 's-<b>&"quoted"',
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    response_mode: "form_post",
    ...overrides,
  });
  return `/oauth/authorize?${params}`;
}

test("an authorize error is form-posted to the redirect URI by the relay page's own script", async ({
  page,
}) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const posted = page.waitForRequest(
    (request) => request.url() === CALLBACK && request.method() === "POST",
  );
  const relayPage = await page.goto(authorizeUrl({ scope: "accounts.write" }));
  expect(relayPage?.status()).toBe(200);
  expect(relayPage?.headers()["referrer-policy"]).toBe("no-referrer");
  expect(relayPage?.headers()["cache-control"]).toBe("no-store");
  const request = await posted;
  const fields = new URLSearchParams(request.postData() ?? "");
  expect([...fields.keys()]).toEqual(["error", "error_description", "iss", "state"]);
  expect(fields.get("error")).toBe("invalid_scope");
  expect(fields.get("iss")).toBe(E2E_ORIGIN);
  expect(fields.get("state")).toBe('s-<b>&"quoted"');
  expect(request.headers()["referer"]).toBeUndefined();
  expect(violations).toEqual([]);
});

test("without JavaScript the relay page offers a button that posts the same fields", async ({
  browser,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false, locale: "fi-FI" });
  const page = await context.newPage();
  await page.goto(authorizeUrl({ response_mode: "query" }));
  const button = page.getByRole("button", { name: "Jatka" });
  await expect(button).toBeVisible();
  const posted = page.waitForRequest(
    (request) => request.url() === CALLBACK && request.method() === "POST",
  );
  await button.click();
  const fields = new URLSearchParams((await posted).postData() ?? "");
  expect(fields.get("error")).toBe("invalid_request");
  await context.close();
});

test("a bad redirect URI is refused with a page in the person's language and the browser goes nowhere", async ({
  page,
}) => {
  const response = await page.goto(authorizeUrl({ redirect_uri: "https://evil.example/callback" }));
  expect(response?.status()).toBe(400);
  expect(page.url()).toContain("/oauth/authorize");
  await expect(page.locator("h1")).toHaveText("This sign-in link does not work");
  await expect(page.locator("main [role=alert]")).toContainText("not registered");
  await expect(page.locator("main code")).toHaveText(
    "invalid_request: redirect_uri is not registered for this client",
  );
  await expect(page.locator("a, form, script")).toHaveCount(0);
});

test("a signed-out user is sent to the login page with the authorize URL to come back to", async ({
  page,
  context,
}) => {
  await page.goto(authorizeUrl({}));
  const url = new URL(page.url());
  expect(url.pathname).toBe("/login");
  expect(url.searchParams.get("returnUrl")).toBe(`${E2E_ORIGIN}${authorizeUrl({})}`);
  const cookies = await context.cookies();
  const flow = cookies.find((cookie) => cookie.name === "bc_flow");
  expect(flow?.httpOnly).toBe(true);
  expect(flow?.sameSite).toBe("Lax");
});
