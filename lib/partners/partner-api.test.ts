import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { db } from "../db/client";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  mintApiKey,
  signedInCookie,
} from "../../test/oauth-fixtures";
import { handleLogoRequest } from "./logos";
import {
  handleClientBranding,
  handleLogoUpload,
  handlePartnerMe,
  handlePutBranding,
} from "./partner-api";
import { ownerOf } from "../../test/partner-owners";
import { PNG } from "../../test/images";

const me = (cookie: string, query = "") =>
  handlePartnerMe(new Request(`${ISSUER}/api/partner/me${query}`, { headers: { Cookie: cookie } }));

function put(
  owner: { cookie: string; csrf: string },
  body: unknown,
  headers: Record<string, string> = {},
) {
  return handlePutBranding(
    new Request(`${ISSUER}/api/partner/branding`, {
      method: "PUT",
      headers: {
        Cookie: owner.cookie,
        Origin: ISSUER,
        "Content-Type": "application/json",
        "X-CSRF-Token": owner.csrf,
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
}

describe("GET /api/partner/me", () => {
  it("returns the owner's partner with its branding record", async () => {
    const owner = await ownerOf();
    const response = await me(owner.cookie);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: owner.clients[0]?.partnerId,
      name: "Acme Budget",
      status: "active",
      branding: { displayName: null, logoUrl: null, accentColor: null, defaultLanguage: null },
      recipientKey: null,
    });
  });

  it("refuses without a session, a non-owner and an API key", async () => {
    expect((await me("")).status).toBe(401);
    const stranger = await createTestUser();
    expect((await me(await signedInCookie(stranger.id))).status).toBe(403);
    const { key } = await mintApiKey(await createTestClient());
    const withKey = await handlePartnerMe(
      new Request(`${ISSUER}/api/partner/me`, { headers: { "X-Api-Key": key } }),
    );
    expect(withKey.status).toBe(403);
    expect(withKey.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
  });

  it("makes an owner of several partners choose one", async () => {
    const owner = await ownerOf(2);
    expect((await me(owner.cookie)).status).toBe(400);
    const second = owner.clients[1]?.partnerId ?? "";
    const chosen = await me(owner.cookie, `?partner=${second}`);
    expect(((await chosen.json()) as { id: string }).id).toBe(second);
    const other = (await createTestClient()).partnerId;
    expect((await me(owner.cookie, `?partner=${other}`)).status).toBe(403);
  });
});

describe("PUT /api/partner/branding", () => {
  const record = {
    // Display names are the partner's own: no other partner may show one like it.
    displayName: `Acme ${randomBytes(4).toString("hex")}`,
    accentColor: "#0A7D3B",
    supportUrl: "https://acme.example/help",
    purpose: "Budgets from your transactions.",
    defaultLanguage: "sv",
  };

  it("replaces the whole record; omitted fields are cleared", async () => {
    const owner = await ownerOf();
    const first = await put(owner, { ...record, termsUrl: "https://acme.example/terms" });
    expect(first.status).toBe(200);
    const second = await put(owner, record);
    expect(((await second.json()) as { branding: unknown }).branding).toEqual({
      ...record,
      accentColor: "#0a7d3b",
      logoUrl: null,
      termsUrl: null,
      privacyUrl: null,
    });
  });

  it("stores the normalized link and answers it in GET /api/partner/me", async () => {
    const owner = await ownerOf();
    const written = await put(owner, { supportUrl: "HTTPS://Acme.Example:443/Help Desk" });
    expect(written.status).toBe(200);
    const stored = "https://acme.example/Help%20Desk";
    expect(
      ((await written.json()) as { branding: { supportUrl: string } }).branding.supportUrl,
    ).toBe(stored);
    const read = (await (await me(owner.cookie)).json()) as { branding: { supportUrl: string } };
    expect(read.branding.supportUrl).toBe(stored);
    const row = await db().partner.findUniqueOrThrow({
      where: { id: owner.clients[0]?.partnerId ?? "" },
    });
    expect(row.supportUrl).toBe(stored);
  });

  it("names every violation in a 400", async () => {
    const owner = await ownerOf();
    const response = await put(owner, { displayName: "x".repeat(81), accentColor: "green" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "invalid_branding",
      error_description:
        "displayName must be at most 80 characters; accentColor must be a colour as #rrggbb",
      violations: [
        {
          field: "displayName",
          code: "too_long",
          message: "displayName must be at most 80 characters",
        },
        {
          field: "accentColor",
          code: "colour",
          message: "accentColor must be a colour as #rrggbb",
        },
      ],
    });
  });

  it("keeps links under the partner's pinned domain", async () => {
    const owner = await ownerOf();
    await db().partner.update({
      where: { id: owner.clients[0]?.partnerId ?? "" },
      data: { registeredDomain: "acme.example" },
    });
    expect((await put(owner, { privacyUrl: "https://other.example/p" })).status).toBe(400);
    expect((await put(owner, { privacyUrl: "https://www.acme.example/p" })).status).toBe(200);
  });

  it("refuses a logo URL on a loopback address before fetching it", async () => {
    const owner = await ownerOf();
    const response = await put(owner, { logoUrl: "https://127.0.0.1/logo.png" });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { violations: { field: string; code: string }[] };
    expect(body.violations).toMatchObject([{ field: "logoUrl", code: "private_address" }]);
  });

  it("logs a refused logo with the reason's code, not [redacted]", async () => {
    const owner = await ownerOf();
    const written = vi.spyOn(process.stdout, "write");
    try {
      expect((await put(owner, { logoUrl: "https://127.0.0.1/logo.png" })).status).toBe(400);
      const lines = written.mock.calls
        .map((call) => String(call[0]))
        .filter((text) => text.includes('"event":"partner.logo_refused"'))
        .map((text) => JSON.parse(text) as Record<string, unknown>);
      expect(lines).toEqual([expect.objectContaining({ reason: "private_address" })]);
    } finally {
      written.mockRestore();
    }
  });

  it("refuses a write without the session's CSRF token or from another origin", async () => {
    const owner = await ownerOf();
    expect((await put({ ...owner, csrf: "forged" }, record)).status).toBe(403);
    expect((await put(owner, record, { Origin: "https://evil.example" })).status).toBe(403);
    const partner = await db().partner.findUniqueOrThrow({
      where: { id: owner.clients[0]?.partnerId ?? "" },
    });
    expect(partner.displayName).toBeNull();
  });
});

describe("GET /api/connect/clients/{client_id}/branding", () => {
  it("serves what the screens need, cacheable, and 404 for an unknown client", async () => {
    const owner = await ownerOf();
    const displayName = `Acme ${randomBytes(4).toString("hex")}`;
    await put(owner, { displayName, accentColor: "#ffdd00" });
    const clientId = owner.clients[0]?.clientId ?? "";
    const response = await handleClientBranding(clientId);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await response.json()).toMatchObject({
      clientId,
      name: displayName,
      accentColor: "#ffdd00",
      accentTextColor: "#000000",
      logoUrl: null,
    });
    expect((await handleClientBranding("obc_unknown")).status).toBe(404);
  });
});

describe("POST /api/partner/logo", () => {
  const upload = (owner: { cookie: string; csrf: string }, body: Buffer, type = "image/png") =>
    handleLogoUpload(
      new Request(`${ISSUER}/api/partner/logo`, {
        method: "POST",
        headers: {
          Cookie: owner.cookie,
          Origin: ISSUER,
          "X-CSRF-Token": owner.csrf,
          "Content-Type": type,
        },
        body: new Uint8Array(body),
      }),
    );

  it("stores an uploaded PNG and serves it from our host with long caching", async () => {
    const owner = await ownerOf();
    const response = await upload(owner, PNG);
    expect(response.status).toBe(200);
    const { branding } = (await response.json()) as { branding: { logoUrl: string } };
    expect(branding.logoUrl).toMatch(/^\/logos\/[0-9a-f]{64}\.png$/);
    const file = branding.logoUrl.slice("/logos/".length);
    const served = await handleLogoRequest(new Request(`${ISSUER}${branding.logoUrl}`), file);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("cache-control")).toContain("immutable");
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    // Sending the served path back keeps the logo.
    expect(
      (
        (await (await put(owner, { logoUrl: branding.logoUrl })).json()) as {
          branding: { logoUrl: string };
        }
      ).branding.logoUrl,
    ).toBe(branding.logoUrl);
  });

  it.each([
    [
      "a GIF",
      Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"),
      "unsupported_type",
    ],
    [
      "an SVG",
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>'),
      "unsupported_type",
    ],
    ["an oversized image", Buffer.concat([PNG, Buffer.alloc(600 * 1024)]), "too_large"],
  ])("refuses %s naming the logo", async (_label, bytes, code) => {
    const owner = await ownerOf();
    const response = await upload(owner, bytes);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { violations: { field: string; code: string }[] };
    expect(body.violations).toMatchObject([{ field: "logo", code }]);
  });
});
