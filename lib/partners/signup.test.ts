import { afterEach, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { setSetting } from "../env";
import { eventsWhere, fromAddress, uniqueAddress } from "../../test/audit";
import { createTestClient, ISSUER, mintApiKey } from "../../test/oauth-fixtures";
import { ownerOf, signedInPerson } from "../../test/partner-owners";
import { handlePartnerSignUp } from "./signup";

/** POST /api/partners: a signed-in person without a partner creates one and owns it. */

type Person = Awaited<ReturnType<typeof signedInPerson>>;

function signUp(
  person: Pick<Person, "cookie" | "csrf">,
  body: unknown,
  headers: Record<string, string | null> = {},
) {
  const merged: Record<string, string> = {
    Cookie: person.cookie,
    Origin: ISSUER,
    "X-CSRF-Token": person.csrf,
    "Content-Type": "application/json",
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return handlePartnerSignUp(
    new Request(`${ISSUER}/api/partners`, {
      method: "POST",
      headers: merged,
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

const ownedBy = (userId: string) =>
  db().partner.findMany({
    where: { owners: { some: { userId } } },
    include: { owners: { include: { user: { select: { email: true } } } } },
  });

afterEach(() => setSetting("PARTNER_SELF_SIGNUP", ""));

describe("POST /api/partners (self-service sign-up)", () => {
  it("makes the signed-in person the only owner of a new partner and records partner.created as theirs", async () => {
    const person = await signedInPerson();
    const address = uniqueAddress();
    const name = `Acme Budget ${person.user.id.slice(0, 8)}`;
    const response = await signUp(person, { name: `  ${name}  ` }, fromAddress(address));
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { partner: { id: string; name: string } };
    expect(body).toEqual({
      partner: { id: expect.any(String), name },
      created: true,
    });

    const [partner, ...others] = await ownedBy(person.user.id);
    expect(others).toEqual([]);
    expect(partner?.id).toBe(body.partner.id);
    expect(partner?.owners.map((owner) => owner.user.email)).toEqual([person.user.email]);

    const events = await eventsWhere({ partnerId: body.partner.id });
    expect(events).toMatchObject([
      {
        type: "partner.created",
        actorKind: "user",
        actorId: person.user.id,
        clientIp: address,
        details: { name, ownerEmail: person.user.email },
      },
    ]);
  });

  it("creates one partner for a double submit: the second request answers the first one's partner", async () => {
    const person = await signedInPerson();
    const name = `Twice Clicked ${person.user.id.slice(0, 8)}`;
    const answers = await Promise.all([
      signUp(person, { name }),
      signUp(person, { name }),
      signUp(person, { name }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
    const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as {
      partner: { id: string };
      created: boolean;
    }[];
    expect(new Set(bodies.map((body) => body.partner.id)).size).toBe(1);
    expect(bodies.filter((body) => body.created)).toHaveLength(1);
    const partners = await ownedBy(person.user.id);
    expect(partners).toHaveLength(1);
    const events = await eventsWhere({ partnerId: partners[0]?.id ?? "" });
    expect(events.map((event) => event.type)).toEqual(["partner.created"]);
  });

  it("answers the partner an owner already has, creating nothing", async () => {
    const owner = await ownerOf();
    const response = await signUp(owner, { name: "Another One" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partner: { id: owner.partnerId, name: expect.any(String) },
      created: false,
    });
    expect(await ownedBy(owner.user.id)).toHaveLength(1);
  });

  it("refuses a name another partner has, whatever its case, creating nothing", async () => {
    const first = await signedInPerson();
    const name = `Acme ${first.user.id.slice(0, 8)}`;
    expect((await signUp(first, { name })).status).toBe(201);
    const second = await signedInPerson();
    for (const taken of [name, name.toUpperCase(), `  ${name.toLowerCase()} `]) {
      const response = await signUp(second, { name: taken });
      expect(response.status, taken).toBe(409);
      expect(await response.json()).toMatchObject({
        error: "name_taken",
        violations: [{ field: "name", code: "taken", message: expect.any(String) }],
      });
    }
    expect(await ownedBy(second.user.id)).toEqual([]);
    // Two people racing for one new name: one partner is made.
    const [third, fourth] = [await signedInPerson(), await signedInPerson()];
    const raced = `Race ${third.user.id.slice(0, 8)}`;
    const answers = await Promise.all([
      signUp(third, { name: raced }),
      signUp(fourth, { name: raced }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(await db().partner.count({ where: { name: raced } })).toBe(1);
  });

  it("is refused with 403 signup_closed when PARTNER_SELF_SIGNUP=false, creating nothing", async () => {
    setSetting("PARTNER_SELF_SIGNUP", "false");
    const person = await signedInPerson();
    const response = await signUp(person, { name: "Closed Doors" });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: "signup_closed" });
    expect(await ownedBy(person.user.id)).toEqual([]);
  });

  it("refuses a missing, forged or other session's CSRF token and a foreign or missing Origin", async () => {
    const person = await signedInPerson();
    const other = await signedInPerson();
    const forgeries: Record<string, string | null>[] = [
      { "X-CSRF-Token": null },
      { "X-CSRF-Token": "forged" },
      { "X-CSRF-Token": other.csrf },
      { Origin: "https://evil.example" },
      { Origin: null },
    ];
    for (const headers of forgeries) {
      const response = await signUp(person, { name: "Forged" }, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(await response.json()).toMatchObject({ error: "csrf" });
    }
    expect(await ownedBy(person.user.id)).toEqual([]);
  });

  it("needs a session (401) and refuses API keys (403)", async () => {
    const anonymous = await signUp({ cookie: "", csrf: "" }, { name: "Nobody" });
    expect(anonymous.status).toBe(401);
    const { key } = await mintApiKey(await createTestClient());
    const withKey = await signUp({ cookie: "", csrf: "" }, { name: "Key" }, { "X-Api-Key": key });
    expect(withKey.status).toBe(403);
    expect(withKey.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
  });

  it("names the refused name with a code, and refuses a body that is not a JSON object", async () => {
    const fresh = await signedInPerson();
    const cases: [unknown, string, string][] = [
      [{ name: "   " }, "name", "required"],
      [{ name: "x".repeat(101) }, "name", "too_long"],
      [{ name: "Two\nlines" }, "name", "one_line"],
      [{ name: 42 }, "name", "invalid_type"],
      [{}, "name", "invalid_type"],
      [[1], "body", "invalid_body"],
      ["name=Acme", "body", "invalid_body"],
    ];
    for (const [body, field, code] of cases) {
      const response = await signUp(fresh, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject({
        error: "invalid_request",
        violations: [{ field, code, message: expect.any(String) }],
      });
    }
    expect(await ownedBy(fresh.user.id)).toEqual([]);
  });
});
