import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as branding from "../../app/api/partner/branding/route";
import * as partners from "../../app/api/partners/route";
import { db } from "../../lib/db/client";
import { ISSUER } from "../oauth-fixtures";
import { ownerOf, signedInPerson, type TestOwner } from "../partner-owners";
import { startRouteServer, type RouteServer } from "../route-server";

/**
 * A partner is known to people by the name the consent screen and the
 * sign-in mail show: its branding display name, else its name. No partner
 * may sign up under, or display, a name that looks like another partner's:
 * invisible characters and text-direction controls are refused outright,
 * white space and compatibility forms are normalized, and names are compared
 * by their confusable skeleton (Unicode TS #39). Over HTTP, through the
 * sign-up and branding routes (docs/partner-signup.md).
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/api/partners": partners,
    "/api/partner/branding": branding,
  });
});
afterAll(() => server.close());

type Person = Pick<TestOwner, "cookie" | "csrf">;

/** Letters only (no digits, which have look-alikes of their own), unique per call. */
const tag = () => [...randomBytes(6)].map((byte) => String.fromCharCode(97 + (byte % 26))).join("");

function send(person: Person, method: string, path: string, body: unknown) {
  return fetch(server.origin + path, {
    method,
    headers: {
      Cookie: person.cookie,
      Origin: ISSUER,
      "X-CSRF-Token": person.csrf,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
}

async function signUp(name: string) {
  const person = await signedInPerson();
  const response = await send(person, "POST", "/api/partners", { name });
  return {
    person,
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  };
}

const putDisplayName = (owner: TestOwner, displayName: string | null) =>
  send(owner, "PUT", "/api/partner/branding", { displayName });

const refusedAs = (code: string) => ({
  violations: [{ field: "name", code, message: expect.any(String) }],
});

describe("look-alike partner names over HTTP", () => {
  it("refuses a sign-up whose name looks like another partner's, whatever the disguise", async () => {
    const word = tag();
    const name = `Global ${word} Pay`;
    const first = await signUp(name);
    expect(first.status).toBe(201);

    const cyrillic = (text: string) =>
      text.replaceAll("a", "\u0430").replaceAll("o", "\u043e").replaceAll("e", "\u0435");
    const taken = [
      name.toUpperCase(),
      `Global  ${word}   Pay`, // runs of spaces
      `Global\u00a0${word}\u2003Pay`, // a no-break space and an em space
      cyrillic(name), // Cyrillic а, о, е for Latin a, o, e
      `GIobal ${word} Pay`, // a capital I for the l
      `G1obal ${word} Pay`, // a digit one for the l
      `\uff27\uff4c\uff4f\uff42\uff41\uff4c ${word} Pay`, // full-width letters
      `Global ${word} Pay`.replace("Pay", "Ра\u0443"), // Cyrillic Р, а, у
    ];
    for (const disguise of taken) {
      const answer = await signUp(disguise);
      expect(answer.status, JSON.stringify(disguise)).toBe(409);
      expect(answer.body).toMatchObject({ error: "name_taken", ...refusedAs("taken") });
    }

    const invisible = [
      `Global\u200b ${word} Pay`, // a zero-width space
      `Glo\u200dbal ${word} Pay`, // a zero-width joiner
      `\u202eyaP ${word} labolG`, // a right-to-left override
      `Global ${word} Pay\u2066`, // a left-to-right isolate
      `Global ${word}\u00ad Pay`, // a soft hyphen
      `Global ${word} Pay\ufeff`, // a byte order mark
      `Global ${word} Pay\u2800`, // a blank Braille pattern
    ];
    for (const disguise of invisible) {
      const answer = await signUp(disguise);
      expect(answer.status, JSON.stringify(disguise)).toBe(400);
      expect(answer.body).toMatchObject({ error: "invalid_request", ...refusedAs("invisible") });
    }
    const partners = await db().partner.findMany({ where: { name: { contains: word } } });
    expect(partners.map((partner) => partner.name)).toEqual([name]);
  });

  it("stores a new partner's name normalized: NFKC, one space between words", async () => {
    const word = tag();
    const answer = await signUp(`  \uff2e\uff4f\uff52\uff54\uff48\u00a0\u00a0${word}\tish `);
    // A tab is a control character: refused as before, not collapsed.
    expect(answer.status).toBe(400);
    const clean = await signUp(`  \uff2e\uff4f\uff52\uff54\uff48\u00a0\u00a0${word}\u2009Co `);
    expect(clean.status).toBe(201);
    expect(clean.body).toMatchObject({ partner: { name: `North ${word} Co` } });
  });

  it("lets exactly one of two people racing for look-alike names have it", async () => {
    const word = tag();
    const answers = await Promise.all([
      signUp(`Race ${word}`),
      signUp(`R\u0430ce ${word}`),
      signUp(`RACE  ${word}`),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409]);
  });

  it("refuses a display name that looks like another partner's name or display name, and keeps the partner's own", async () => {
    const word = tag();
    const known = await signUp(`Known ${word} Bank`);
    expect(known.status).toBe(201);
    const owner = await ownerOf();
    const ownName = (await db().partner.findUniqueOrThrow({ where: { id: owner.partnerId } })).name;

    for (const copy of [
      `Known ${word} Bank`,
      `Kn\u043ewn ${word} B\u0430nk`,
      `KNOWN ${word} BANK`,
    ]) {
      const response = await putDisplayName(owner, copy);
      expect(response.status, copy).toBe(400);
      expect(await response.json()).toMatchObject({
        error: "invalid_branding",
        violations: [{ field: "displayName", code: "taken", message: expect.any(String) }],
      });
    }
    const hidden = await putDisplayName(owner, `Known\u200b ${word} Bank`);
    expect(hidden.status).toBe(400);
    expect(await hidden.json()).toMatchObject({
      violations: [{ field: "displayName", code: "invisible", message: expect.any(String) }],
    });

    // Its own name, in any case, is its own.
    for (const own of [ownName, ownName.toUpperCase()]) {
      expect((await putDisplayName(owner, own)).status, own).toBe(200);
    }

    // A display name of its own is held for it: nobody signs up or displays a look-alike.
    const displayed = `Shown ${word} Money`;
    const saved = await putDisplayName(owner, `  Shown\u00a0${word}  Money `);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ branding: { displayName: displayed } });
    expect((await signUp(`Sh\u043ewn ${word} Money`)).status).toBe(409);
    const other = await ownerOf();
    expect((await putDisplayName(other, displayed.toLowerCase())).status).toBe(400);

    // Changed, the old display name is free again.
    expect((await putDisplayName(owner, null)).status).toBe(200);
    expect((await signUp(displayed)).status).toBe(201);
    expect((await putDisplayName(owner, displayed)).status).toBe(400);
  });
});
