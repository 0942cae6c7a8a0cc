import { describe, expect, it } from "vitest";
import { db } from "../../lib/db/client";
import { handlePutBranding, handleLogoUpload } from "../../lib/partners/partner-api";
import { PNG } from "../images";
import { ISSUER } from "../oauth-fixtures";
import { ownerOf, type TestOwner } from "../partner-owners";

/**
 * The dashboard's mutations (docs/security.md): the owner session's CSRF token in
 * X-CSRF-Token and this service's Origin, or nothing changes.
 */

const EVIL = "https://evil.example";

function ownerRequest(
  owner: TestOwner,
  method: string,
  path: string,
  body: BodyInit,
  headers: Record<string, string | null>,
  contentType: string,
): Request {
  const merged: Record<string, string> = {
    Cookie: owner.cookie,
    Origin: ISSUER,
    "X-CSRF-Token": owner.csrf,
    "Content-Type": contentType,
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return new Request(`${ISSUER}${path}`, { method, headers: merged, body });
}

/** Requests that must be refused: no token, a forged one, another session's, foreign or no Origin. */
async function refusals(): Promise<Record<string, string | null>[]> {
  const other = await ownerOf();
  return [
    { "X-CSRF-Token": null },
    { "X-CSRF-Token": "forged" },
    { "X-CSRF-Token": other.csrf },
    { Origin: EVIL },
    { Origin: null },
  ];
}

describe("dashboard mutations need the session's CSRF token and this origin", () => {
  it("POST /api/partner/logo refuses a missing, forged or other session's token and a foreign or missing Origin", async () => {
    const owner = await ownerOf();
    const upload = (headers: Record<string, string | null>) =>
      handleLogoUpload(
        ownerRequest(owner, "POST", "/api/partner/logo", new Uint8Array(PNG), headers, "image/png"),
      );
    for (const headers of await refusals()) {
      expect((await upload(headers)).status, JSON.stringify(headers)).toBe(403);
    }
    const partner = () => db().partner.findUniqueOrThrow({ where: { id: owner.partnerId } });
    expect((await partner()).logoHash).toBeNull();
    expect((await upload({})).status).toBe(200);
    expect((await partner()).logoHash).not.toBeNull();
  });

  it("PUT /api/partner/branding refuses a missing, forged or other session's token and a foreign or missing Origin", async () => {
    const owner = await ownerOf();
    const put = (headers: Record<string, string | null>) =>
      handlePutBranding(
        ownerRequest(
          owner,
          "PUT",
          "/api/partner/branding",
          JSON.stringify({ displayName: "Renamed" }),
          headers,
          "application/json",
        ),
      );
    for (const headers of await refusals()) {
      expect((await put(headers)).status, JSON.stringify(headers)).toBe(403);
    }
    const partner = () => db().partner.findUniqueOrThrow({ where: { id: owner.partnerId } });
    expect((await partner()).displayName).toBeNull();
    expect((await put({})).status).toBe(200);
    expect((await partner()).displayName).toBe("Renamed");
  });
});
