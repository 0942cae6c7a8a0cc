import { expect, test, type Response } from "@playwright/test";
import {
  approveWithKey,
  authorizePath,
  connectSandboxBank,
  createJourneyClient,
  createKey,
  newPkce,
  signInByLink,
  uniqueEmail,
} from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { partnerAppForSpec } from "./support/partner-app";

test.describe.configure({ timeout: 120_000 });

const partnerApp = partnerAppForSpec();

/** Screens a browser can open without a flow (the flow's own are walked below). */
const STANDALONE_SCREENS = [
  "/",
  "/login",
  "/login/link?token=not-a-real-token",
  "/setup",
  "/banks",
  "/consent",
  "/error?reason=expired",
  "/dashboard",
  "/demo",
  "/docs",
  "/docs/data",
  "/docs/envelopes",
  "/docs/errors",
  "/docs/flow",
  "/docs/partners",
  "/docs/recipient-keys",
  "/docs/relay",
  "/docs/sync",
  "/docs/token",
  "/sandbox/authorize?authorization=forged",
  "/no-such-page",
];

function expectFramingRefused(
  response: Response | { headers(): Record<string, string> },
  what: string,
) {
  const headers = response.headers();
  expect(headers["x-frame-options"], what).toBe("DENY");
  expect(headers["content-security-policy"] ?? "", what).toContain("frame-ancestors 'none'");
}

test("every HTML screen refuses framing (X-Frame-Options and CSP frame-ancestors)", async ({
  page,
  request,
}) => {
  for (const path of STANDALONE_SCREENS) {
    const response = await request.get(path, { maxRedirects: 0 });
    expectFramingRefused(response, `GET ${path} → ${response.status()}`);
    if (response.status() === 200) {
      expect(response.headers()["content-type"], path).toContain("text/html");
    }
  }

  // The relay page an authorize error is form-posted with (its own CSP, the baseline's framing).
  const client = await createJourneyClient(partnerApp().redirectUri);
  const errorRelay = await request.get(
    authorizePath(client, newPkce().challenge, { scope: "accounts.write" }),
    { maxRedirects: 0 },
  );
  expect(await errorRelay.text()).toContain('<form id="relay" method="post"');
  expect(errorRelay.headers()["content-security-policy"]).toMatch(/script-src 'sha256-/);
  expectFramingRefused(errorRelay, "the authorize error relay");

  // A whole journey: every HTML document this service serves on the way.
  const documents: { url: string; headers: Record<string, string> }[] = [];
  page.on("response", async (response) => {
    const document = response.request().resourceType() === "document";
    if (!document || !response.url().startsWith(E2E_ORIGIN)) return;
    const headers = await response.allHeaders();
    if ((headers["content-type"] ?? "").startsWith("text/html")) {
      documents.push({ url: `${response.request().method()} ${response.url()}`, headers });
    }
  });
  const relay = partnerApp().nextRelay();
  await page.goto(authorizePath(client, newPkce().challenge));
  await signInByLink(page, uniqueEmail());
  await createKey(page);
  await connectSandboxBank(page);
  await expect(page).toHaveURL(/\/consent$/);
  // User-key mode: the consent screen relays from the browser, with the key this tab set up.
  await approveWithKey(page);
  expect(Object.fromEntries(await relay).code).toBeTruthy();

  const paths = documents.map(({ url }) => new URL(url.split(" ")[1] ?? "").pathname);
  for (const screen of [
    "/login",
    "/login/link",
    "/setup",
    "/banks",
    "/sandbox/authorize",
    "/consent",
  ]) {
    expect(paths, screen).toContain(screen);
  }
  for (const { url, headers } of documents) expectFramingRefused({ headers: () => headers }, url);
});
