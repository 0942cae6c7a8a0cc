import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { makeMissingNameKeys, NAME_KEYS_VERSION, nameKey, skeleton } from "./name-keys";
import { checkName } from "./names";
import { signUpPartner } from "./signup";
import { SYSTEM_AUDIT } from "../audit/events";
import { createTestUser } from "../../test/oauth-fixtures";

/** Letters only, unique per call. */
const tag = () => [...randomBytes(6)].map((byte) => String.fromCharCode(97 + (byte % 26))).join("");

describe("look-alike keys of names", () => {
  it("are the confusable skeleton of UTS #39, without case", () => {
    // Examples of the standard's own table: Cyrillic and Greek letters, digits, letter pairs.
    expect(skeleton("p\u0430yp\u0430l")).toBe("paypal");
    expect(skeleton("\u0391\u0392\u0395")).toBe("ABE");
    expect(skeleton("m")).toBe("rn");
    expect(skeleton("0")).toBe("O");
    const same = [
      [
        "PayPal",
        "PAYPAL",
        "p\u0430yp\u0430l",
        "PayPaI",
        "P\u0430yP\u0430\u0406",
        "Pay Pal".replace(" ", ""),
      ],
      [
        "Acme Budget",
        "acme  budget",
        "\uff21\uff43\uff4d\uff45 Budget",
        "Acrne Budget",
        "Acme\u00a0Budget",
      ],
      ["Global 1", "Global l", "GIobal I", "G1obal 1"],
      // A name with an i, in capitals: the table sends a capital I to l.
      ["Global Vilhbl Pay", "GLOBAL VILHBL PAY", "Global VIlhbl Pay"],
    ];
    for (const group of same) {
      for (const name of group) expect(nameKey(name), name).toBe(nameKey(group[0] ?? ""));
    }
    for (const [one, other] of [
      ["Acme", "Acne"],
      ["Acme Budget", "AcmeBudget"],
      ["Nordea", "Nordia"],
    ]) {
      expect(nameKey(one ?? "")).not.toBe(nameKey(other ?? ""));
    }
  });

  it("start from the normalized name, and invisible characters are refused, not dropped", () => {
    expect(checkName("  Acme \u00a0\u2003 Budget  ")).toEqual({ ok: true, name: "Acme Budget" });
    expect(checkName("\ufb01nance")).toEqual({ ok: true, name: "finance" });
    for (const hidden of [
      "Ac\u200bme",
      "\u202eemcA",
      "Acme\u2069",
      "Ac\u00adme",
      "\u3164",
      "Acme\ue000",
    ]) {
      expect(checkName(hidden), JSON.stringify(hidden)).toMatchObject({
        ok: false,
        code: "invisible",
      });
    }
    expect(checkName("Acme\u0085Budget")).toMatchObject({ ok: false, code: "one_line" });
    expect(checkName(" \u2003 ")).toMatchObject({ ok: false, code: "required" });
  });
});

describe("partners from before the keys", () => {
  it("get their keys at start, oldest first; a later look-alike holds none", async () => {
    const word = tag();
    // Two partners stored before the keys existed, the later one under a look-alike name.
    const older = await db().partner.create({
      data: { name: `Legacy ${word}`, displayName: `Shown ${word}`, createdAt: new Date(1000) },
    });
    const later = await db().partner.create({
      data: {
        name: `LEGACY  ${word}`,
        displayName: `Sh\u043ewn ${word}`,
        createdAt: new Date(2000),
      },
    });
    const made = await makeMissingNameKeys();
    expect(made.partners).toBeGreaterThanOrEqual(2);
    expect(made.lookAlikes).toBeGreaterThanOrEqual(1);
    const keys = await db().partnerNameKey.findMany({
      where: { partnerId: { in: [older.id, later.id] } },
      orderBy: { field: "asc" },
    });
    expect(keys.map((key) => [key.partnerId, key.field, key.key])).toEqual([
      [older.id, "displayName", nameKey(`Shown ${word}`)],
      [older.id, "name", nameKey(`Legacy ${word}`)],
    ]);
    const versions = await db().partner.findMany({
      where: { id: { in: [older.id, later.id] } },
      select: { nameKeysVersion: true },
    });
    expect(versions).toEqual(Array(2).fill({ nameKeysVersion: NAME_KEYS_VERSION }));
    // Made once: a second start finds nothing to do for them.
    await makeMissingNameKeys();
    expect(await db().partnerNameKey.count({ where: { partnerId: older.id } })).toBe(2);

    // And from now on nobody signs up a name like theirs.
    const user = await createTestUser();
    for (const name of [`legacy ${word}`, `Shown ${word}`]) {
      expect(
        await signUpPartner({ userId: user.id, email: user.email }, name, SYSTEM_AUDIT),
      ).toEqual({
        taken: true,
      });
    }
  });
});
