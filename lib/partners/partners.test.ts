import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { expectPartnerError } from "../../test/partner-errors";
import { db, disconnectDb } from "../db/client";
import {
  addPartnerOwner,
  assertPartnerExists,
  createPartner,
  findPartner,
  listPartners,
  setPartnerStatus,
  setRegisteredDomain,
} from "./partners";

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

describe("setRegisteredDomain", () => {
  it("pins a parsed domain and clears it with null or a blank value", async () => {
    const created = await createPartner({
      name: `Domain ${unique()}`,
      ownerEmail: `d-${unique()}@example.com`,
    });
    expect(created.registeredDomain).toBeNull();
    const pinned = await setRegisteredDomain(created.id, " Acme.Example ");
    expect(pinned).toMatchObject({ id: created.id, registeredDomain: "acme.example" });
    expect(
      (await db().partner.findUniqueOrThrow({ where: { id: created.id } })).registeredDomain,
    ).toBe("acme.example");

    expect((await setRegisteredDomain(created.id, "")).registeredDomain).toBeNull();
    await setRegisteredDomain(created.id, "acme.example");
    expect((await setRegisteredDomain(created.id, null)).registeredDomain).toBeNull();
  });

  it("refuses a bad domain and keeps the pinned one", async () => {
    const created = await createPartner({
      name: `Domain ${unique()}`,
      ownerEmail: `d-${unique()}@example.com`,
    });
    await setRegisteredDomain(created.id, "acme.example");
    const error = await expectPartnerError(
      setRegisteredDomain(created.id, "https://acme.example/"),
      "invalid_domain",
    );
    expect(error.message).toBe(
      'the registered domain "https://acme.example/" must be a bare domain, without a scheme',
    );
    expect(
      (await db().partner.findUniqueOrThrow({ where: { id: created.id } })).registeredDomain,
    ).toBe("acme.example");
  });

  it.each([randomUUID(), "acme"])("throws unknown_partner for %j", async (partnerId) => {
    const error = await expectPartnerError(
      setRegisteredDomain(partnerId, "acme.example"),
      "unknown_partner",
    );
    expect(error.message).toBe(`no partner with id ${JSON.stringify(partnerId)}`);
  });
});

describe("setPartnerStatus", () => {
  it("suspends and resumes; repeating a status is a no-op", async () => {
    const created = await createPartner({
      name: `Status ${unique()}`,
      ownerEmail: `s-${unique()}@example.com`,
    });
    expect((await setPartnerStatus(created.id, "suspended")).status).toBe("suspended");
    expect((await setPartnerStatus(created.id, "suspended")).status).toBe("suspended");
    expect((await db().partner.findUniqueOrThrow({ where: { id: created.id } })).status).toBe(
      "suspended",
    );
    expect((await setPartnerStatus(created.id, "active")).status).toBe("active");
  });

  it("throws unknown_partner for an unknown id", async () => {
    await expectPartnerError(setPartnerStatus(randomUUID(), "suspended"), "unknown_partner");
    await expectPartnerError(setPartnerStatus("nope", "active"), "unknown_partner");
  });
});

describe("addPartnerOwner", () => {
  it("creates the user by normalized email and adds it as a second owner", async () => {
    const tag = unique();
    const created = await createPartner({
      name: `Owners ${tag}`,
      ownerEmail: `first-${tag}@example.com`,
    });
    const result = await addPartnerOwner(created.id, `  Second-${tag}@EXAMPLE.com `);
    expect(result).toMatchObject({ ownerEmail: `second-${tag}@example.com`, added: true });
    expect(result.partner.ownerEmails).toEqual([
      `first-${tag}@example.com`,
      `second-${tag}@example.com`,
    ]);
    expect(await db().user.count({ where: { email: `second-${tag}@example.com` } })).toBe(1);
  });

  it("is idempotent, also under concurrency: one user, one owner row", async () => {
    const tag = unique();
    const created = await createPartner({
      name: `Idem ${tag}`,
      ownerEmail: `first-${tag}@example.com`,
    });
    const email = `twice-${tag}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => addPartnerOwner(created.id, email)),
    );
    expect(results.filter((result) => result.added)).toHaveLength(1);
    const again = await addPartnerOwner(created.id, email.toUpperCase());
    expect(again.added).toBe(false);
    expect(again.partner.ownerEmails).toEqual([`first-${tag}@example.com`, email]);
    expect(await db().user.count({ where: { email } })).toBe(1);
  });

  it("reuses an existing user (an existing owner of another partner)", async () => {
    const tag = unique();
    const email = `shared-${tag}@example.com`;
    await createPartner({ name: `A ${tag}`, ownerEmail: email });
    const other = await createPartner({ name: `B ${tag}`, ownerEmail: `b-${tag}@example.com` });
    expect((await addPartnerOwner(other.id, email)).added).toBe(true);
    const user = await db().user.findUniqueOrThrow({
      where: { email },
      include: { partnerRoles: true },
    });
    expect(user.partnerRoles).toHaveLength(2);
  });

  it("refuses a bad email and an unknown partner, creating no user", async () => {
    const tag = unique();
    const created = await createPartner({ name: `Bad ${tag}`, ownerEmail: `b-${tag}@example.com` });
    await expectPartnerError(addPartnerOwner(created.id, "not-an-email"), "invalid_email");
    const email = `orphan-${tag}@example.com`;
    await expectPartnerError(addPartnerOwner(randomUUID(), email), "unknown_partner");
    expect(await db().user.count({ where: { email } })).toBe(0);
  });
});
