import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { expectPartnerError } from "../../test/partner-errors";
import { db, disconnectDb } from "../db/client";
import { assertPartnerExists, createPartner, findPartner, listPartners } from "./partners";

afterAll(disconnectDb);

/** Test data is unique per test: the run's database is shared by every test file. */
const unique = () => randomUUID().slice(0, 8);

describe("createPartner", () => {
  it("creates the partner and its owner, with the owner's email normalized", async () => {
    const tag = unique();
    const partner = await createPartner({
      name: `  Budget ${tag} `,
      ownerEmail: ` Owner-${tag}@Example.COM `,
    });
    expect(partner).toMatchObject({
      name: `Budget ${tag}`,
      status: "active",
      ownerEmails: [`owner-${tag}@example.com`],
      clientCount: 0,
    });
    const owners = await db().partnerOwner.findMany({
      where: { partnerId: partner.id },
      include: { user: true },
    });
    expect(owners.map((owner) => owner.user.email)).toEqual([`owner-${tag}@example.com`]);
  });

  it("reuses the existing user for the same normalized email", async () => {
    const tag = unique();
    await createPartner({ name: `First ${tag}`, ownerEmail: `same-${tag}@example.com` });
    await createPartner({ name: `Second ${tag}`, ownerEmail: `SAME-${tag}@EXAMPLE.com` });
    const users = await db().user.findMany({
      where: { email: `same-${tag}@example.com` },
      include: { partnerRoles: true },
    });
    expect(users).toHaveLength(1);
    expect(users[0]?.partnerRoles).toHaveLength(2);
  });

  it("refuses an empty name and creates nothing", async () => {
    const tag = unique();
    const error = await expectPartnerError(
      createPartner({ name: "   ", ownerEmail: `x-${tag}@example.com` }),
      "invalid_name",
    );
    expect(error.message).toBe("the partner name must not be empty");
    expect(await db().user.count({ where: { email: `x-${tag}@example.com` } })).toBe(0);
  });

  it("refuses a name over 100 characters or spanning lines", async () => {
    await expectPartnerError(
      createPartner({ name: "n".repeat(101), ownerEmail: "a@example.com" }),
      "invalid_name",
    );
    await expectPartnerError(
      createPartner({ name: "two\nlines", ownerEmail: "a@example.com" }),
      "invalid_name",
    );
  });

  it.each(["", "not-an-email", "a@", "@example.com"])(
    "refuses the owner email %j",
    async (email) => {
      const error = await expectPartnerError(
        createPartner({ name: `P ${unique()}`, ownerEmail: email }),
        "invalid_email",
      );
      expect(error.message).toMatch(/^the owner email ".*" is not a valid email address$/);
    },
  );
});

describe("listPartners", () => {
  it("lists partners with their owners and client counts", async () => {
    const tag = unique();
    const created = await createPartner({
      name: `Listed ${tag}`,
      ownerEmail: `listed-${tag}@example.com`,
    });
    await db().client.create({
      data: {
        id: `legacy-${tag}`,
        partnerId: created.id,
        name: "c",
        redirectUris: ["https://a.example/cb"],
        secretHash: "x",
      },
    });
    const listed = (await listPartners()).find((partner) => partner.id === created.id);
    expect(listed).toMatchObject({
      name: `Listed ${tag}`,
      ownerEmails: [`listed-${tag}@example.com`],
      clientCount: 1,
    });
  });
});

describe("findPartner / assertPartnerExists", () => {
  it("finds an existing partner", async () => {
    const created = await createPartner({
      name: `Found ${unique()}`,
      ownerEmail: `f-${unique()}@example.com`,
    });
    expect(await findPartner(created.id)).toEqual({ id: created.id, name: created.name });
  });

  it("returns null for an unknown UUID and for a string that is not a UUID", async () => {
    expect(await findPartner(randomUUID())).toBeNull();
    expect(await findPartner("not-a-uuid")).toBeNull();
    expect(await findPartner("")).toBeNull();
  });

  it("throws unknown_partner naming the id", async () => {
    const error = await expectPartnerError(assertPartnerExists("nope"), "unknown_partner");
    expect(error.message).toBe('no partner with id "nope"');
  });
});
