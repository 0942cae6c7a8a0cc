import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { db } from "../lib/db/client";
import { rawSetting, setSetting } from "../lib/env";
import { createPartner } from "../lib/partners/partners";
import { attemptDelivery } from "../lib/webhooks/deliver";
import { connectJourneyDatabase } from "./support/database";
import { signInByLink, uniqueEmail } from "./support/journey";
import { E2E_ORIGIN } from "./support/origin";
import { checkScreenWidths } from "./support/screen-check";
import { recordSecret } from "./support/secrets-seen";

/**
 * A partner's owner adds a webhook endpoint in the dashboard: an address the
 * service refuses is named next to the field, the signing secret is shown
 * once, a test event reaches a receiver on this machine, signed so that a
 * maintained Standard Webhooks library verifies it, and the delivery is
 * listed with its status and answer. The journeys' server sets
 * WEBHOOKS_ALLOW_LOOPBACK=true (a local run: ISSUER is a loopback address),
 * so http://127.0.0.1 is accepted; every other private address stays refused.
 *
 * The journeys' server runs no job workers, so the test runs the webhook
 * queue worker's own attempt (lib/webhooks/deliver.ts) on each pending
 * delivery, as the worker would when its job comes: the same claim, signing,
 * address check and POST, against the same database.
 */

test.describe.configure({ timeout: 360_000 });

const SHOTS = rawSetting("SHOTS_DIR");

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback that answers 200 and keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/bank-connect/events`, received, server };
}

/** Attempts every pending delivery to `url`, as the webhook worker does; answers how many. */
async function deliverPending(url: string): Promise<number> {
  // The worker's address rules allow a loopback receiver only where ISSUER is a loopback
  // origin and the run asks for it, as the journeys' server does (e2e/support/server.ts).
  setSetting("ISSUER", E2E_ORIGIN);
  setSetting("WEBHOOKS_ALLOW_LOOPBACK", "true");
  const pending = await db().webhookDelivery.findMany({
    where: { status: "pending", endpoint: { url } },
    select: { id: true },
  });
  for (const delivery of pending) await attemptDelivery(delivery.id);
  return pending.length;
}

async function ownerOfNewPartner(): Promise<string> {
  connectJourneyDatabase();
  const ownerEmail = uniqueEmail("webhooks");
  await createPartner({ name: "Hook Partner", ownerEmail });
  return ownerEmail;
}

/** The webhooks section at a phone's and a desktop's width, saved when SHOTS_DIR is set. */
async function sectionShots(page: Page, name: string) {
  await checkScreenWidths(page, name);
  if (!SHOTS) return;
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.locator("#webhooks").screenshot({
      path: path.join(SHOTS, `${name}-section-${width}.png`),
    });
  }
}

async function signedInDashboard(browser: Browser, locale: string, email: string) {
  const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto("/dashboard");
  await signInByLink(page, email);
  await expect(page).toHaveURL(/\/dashboard$/);
  return { context, page };
}

test("an owner adds a webhook endpoint, sees its secret once, and a test event reaches the receiver signed", async ({
  browser,
}) => {
  const receiver = await startReceiver();
  try {
    const ownerEmail = await ownerOfNewPartner();
    const { context, page } = await signedInDashboard(browser, "en-GB", ownerEmail);
    const section = page.locator("#webhooks");
    await expect(section.getByRole("heading", { name: "Webhooks", level: 2 })).toBeVisible();
    await expect(section.getByTestId("webhooks-empty")).toContainText("No endpoints yet");
    await expect(page.getByRole("link", { name: "Webhooks" })).toHaveAttribute(
      "href",
      /#webhooks$/,
    );

    // Refusals, each next to its field: no event type, then a private address.
    const url = section.locator("#new-webhook-url");
    await url.fill("https://10.1.2.3/hooks");
    await section.getByRole("button", { name: "Add endpoint" }).click();
    await expect(section.locator("#new-webhook-eventTypes-problem")).toHaveText(
      "Events to send: choose at least one event.",
    );
    await section.getByRole("checkbox", { name: /access\.granted/ }).check();
    await section.getByRole("button", { name: "Add endpoint" }).click();
    await expect(section.locator("#new-webhook-url-problem")).toHaveText(
      "Endpoint URL: this address leads to a private or local network. Use a public address.",
    );
    await expect(url).toHaveAttribute("aria-invalid", "true");
    await sectionShots(page, "en-webhooks-refused");
    await page.setViewportSize({ width: 1280, height: 900 });

    // The loopback receiver, for two event types.
    await url.fill(receiver.url);
    await section.getByRole("checkbox", { name: /access\.ended/ }).check();
    await section.getByRole("button", { name: "Add endpoint" }).click();
    const endpoint = section.getByRole("article", { name: receiver.url });
    // The secret is shown in the new endpoint's own card.
    const secretBox = endpoint.getByRole("region", { name: "Endpoint added: its signing secret" });
    await expect(secretBox).toBeVisible();
    await expect(secretBox).toContainText("It cannot be shown again.");
    const secret = (await secretBox.getByTestId("webhook-secret").textContent()) ?? "";
    recordSecret("webhook secret", secret);
    expect(secret).toMatch(/^whsec_/);
    await expect(endpoint.getByTestId("webhook-state")).toHaveText("Enabled");
    await expect(endpoint.getByRole("list", { name: "Events to send" })).toHaveText(
      /access\.granted\s*access\.ended/,
    );
    await expect(endpoint).toContainText("No deliveries yet.");
    await sectionShots(page, "en-webhooks-secret");
    await page.setViewportSize({ width: 1280, height: 900 });

    // Stored: the secret is gone, and never comes back with the page.
    await secretBox.getByRole("button", { name: "I have stored it" }).click();
    await expect(section.getByTestId("webhook-secret")).toHaveCount(0);
    await page.reload();
    expect(await page.content()).not.toContain(secret);

    // A test event, delivered to the receiver and listed as delivered with its answer.
    await endpoint.getByRole("button", { name: "Send test event" }).click();
    await expect(endpoint.getByTestId("webhook-delivery-status")).toHaveText(
      "Test event sent: it appears below.",
    );
    const row = endpoint.getByTestId("webhook-deliveries").locator("tbody tr").first();
    await expect(row).toContainText("webhook.test");
    expect(await deliverPending(receiver.url)).toBe(1);
    await expect(row.getByText("Delivered")).toBeVisible({ timeout: 90_000 });
    await expect(row).toContainText("200");
    await expect(row).toContainText(/\d+ ms/);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const verified = new Webhook(secret).verify(delivery!.body, {
      "webhook-id": String(delivery!.headers["webhook-id"]),
      "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery!.headers["webhook-signature"]),
    }) as { type: string; data: Record<string, unknown> };
    expect(verified.type).toBe("webhook.test");

    // Replay: the same event again, with the same webhook-id.
    await row.getByRole("button", { name: "Replay webhook.test" }).click();
    await expect(endpoint.getByTestId("webhook-delivery-status")).toHaveText(
      "webhook.test is being delivered again.",
    );
    await expect(endpoint.getByTestId("webhook-deliveries").locator("tbody tr")).toHaveCount(2);
    expect(await deliverPending(receiver.url)).toBe(1);
    await expect
      .poll(() => receiver.received.length, { timeout: 90_000, intervals: [500] })
      .toBe(2);
    expect(receiver.received[1]!.headers["webhook-id"]).toBe(delivery!.headers["webhook-id"]);
    await expect(
      endpoint.getByTestId("webhook-deliveries").locator("tbody tr", { hasText: "Delivered" }),
    ).toHaveCount(2, { timeout: 30_000 });
    await sectionShots(page, "en-webhooks-delivered");

    // The same screen in German and Finnish (the language chosen on a screen).
    for (const locale of ["de", "fi"]) {
      await context.addCookies([{ name: "bc_locale", value: locale, url: E2E_ORIGIN }]);
      await page.reload();
      await expect(page.locator("html")).toHaveAttribute("lang", locale);
      await expect(page.locator("#webhooks tbody tr")).toHaveCount(2);
      await sectionShots(page, `${locale}-webhooks-delivered`);
    }
    await context.close();
  } finally {
    await new Promise((resolve) => receiver.server.close(resolve));
  }
});

test("rotating asks first and says the old secret stays valid 24 hours; disabling and deleting ask or say so", async ({
  browser,
}) => {
  const ownerEmail = await ownerOfNewPartner();
  const { context, page } = await signedInDashboard(browser, "en-GB", ownerEmail);
  const section = page.locator("#webhooks");
  await section.locator("#new-webhook-url").fill("https://8.8.8.8/hooks");
  await section.getByRole("checkbox", { name: /connection\.expiring/ }).check();
  await section.getByRole("button", { name: "Add endpoint" }).click();
  const first = (await section.getByTestId("webhook-secret").textContent()) ?? "";
  recordSecret("webhook secret", first);
  await section.getByRole("button", { name: "I have stored it" }).click();
  const endpoint = section.getByRole("article", { name: "https://8.8.8.8/hooks" });

  await endpoint.getByRole("button", { name: "Rotate secret" }).click();
  const dialog = page.getByRole("dialog", {
    name: "Rotate the signing secret of https://8.8.8.8/hooks?",
  });
  await expect(dialog).toContainText("For 24 hours deliveries are signed with both");
  if (SHOTS)
    await page.screenshot({ path: path.join(SHOTS, "en-webhooks-rotate-dialog-1280.png") });
  await dialog.getByRole("button", { name: "Rotate secret" }).click();
  const rotated = section.getByRole("region", {
    name: "New signing secret of https://8.8.8.8/hooks",
  });
  await expect(rotated).toContainText("The previous secret also signs deliveries until");
  const second = (await rotated.getByTestId("webhook-secret").textContent()) ?? "";
  recordSecret("webhook secret", second);
  expect(second).toMatch(/^whsec_/);
  expect(second).not.toBe(first);

  await endpoint.getByRole("button", { name: "Disable", exact: true }).click();
  await expect(endpoint.getByTestId("webhook-state")).toHaveText("Disabled");
  await expect(endpoint).toContainText("Disabled by an owner");
  await sectionShots(page, "en-webhooks-disabled");
  await page.setViewportSize({ width: 1280, height: 900 });
  await endpoint.getByRole("button", { name: "Enable", exact: true }).click();
  await expect(endpoint.getByTestId("webhook-state")).toHaveText("Enabled");

  await endpoint.getByRole("button", { name: "Delete endpoint" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete the endpoint https://8.8.8.8/hooks?" });
  await confirm.getByRole("button", { name: "Delete endpoint" }).click();
  await expect(section.getByTestId("webhooks-status")).toHaveText(
    "Endpoint https://8.8.8.8/hooks deleted.",
  );
  await expect(section.getByTestId("webhooks-empty")).toBeVisible();
  await context.close();
});
