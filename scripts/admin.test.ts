import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { admin, adminJson, adminWith, expectAdminRefusal } from "../test/admin-cli";
import { generateKeyPair } from "../lib/crypto/envelope";
import { db, disconnectDb } from "../lib/db/client";
import { getEnv } from "../lib/env";
import { OutboxMailer } from "../lib/mail/outbox";
import { handleAuthorizeRequest } from "../lib/flow/start";
import { PARTNER_SUSPENDED } from "../lib/oauth/authorize";
import { toS256Challenge } from "../lib/oauth/pkce";
import { createClient } from "../lib/partners/clients";
import {
  hashClientSecret,
  PREVIOUS_SECRET_GRACE_MS,
  verifyClientSecret,
} from "../lib/keys/client-credentials";

afterAll(disconnectDb);

const json = adminJson;
const expectRefusal = expectAdminRefusal;

const tag = () => randomUUID().slice(0, 8);

const REDIRECT_URI = "https://suspended.example/callback";

/** A signed-out GET /oauth/authorize for this client, with valid parameters (/docs/flow). */
function authorize(clientId: string): Promise<Response> {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: "accounts.read",
    state: "s123",
    code_challenge: toS256Challenge(randomBytes(32).toString("base64url")),
    code_challenge_method: "S256",
    response_mode: "form_post",
  });
  return handleAuthorizeRequest(new Request(`${getEnv().issuer}/oauth/authorize?${params}`));
}

async function newPartner(): Promise<string> {
  const created = json<{ partner_id: string }>(
    await admin(
      "partner",
      "create",
      "--name",
      `CLI ${tag()}`,
      "--owner-email",
      `cli-${tag()}@example.com`,
    ),
  );
  return created.partner_id;
}

describe("admin CLI: partners", () => {
  it("creates a partner (owner email normalized) and lists it", async () => {
    const name = `Budget App ${tag()}`;
    const email = `Owner-${tag()}@Example.com`;
    const created = json(await admin("partner", "create", "--name", name, "--owner-email", email));
    expect(created).toMatchObject({
      name,
      status: "active",
      owner_emails: [email.toLowerCase()],
      client_count: 0,
    });
    expect(created.partner_id).toMatch(/^[0-9a-f-]{36}$/);

    const listed = json<{ partner_id: string }[]>(await admin("partner", "list"));
    expect(listed.find((partner) => partner.partner_id === created.partner_id)).toEqual(created);
  });

  it("prints pretty JSON (two-space indentation)", async () => {
    const run = await admin("partner", "list");
    expect(run.stdout).toMatch(/^\[\n {2}\{\n {4}"partner_id"/);
  });

  it("refuses a bad owner email (exit 1)", async () => {
    expectRefusal(
      await admin("partner", "create", "--name", "X", "--owner-email", "nope"),
      1,
      "is not a valid email address",
    );
  });

  it("refuses an empty name (exit 1)", async () => {
    expectRefusal(
      await admin("partner", "create", "--name", " ", "--owner-email", "a@example.com"),
      1,
      "must not be empty",
    );
  });

  it("refuses a missing --name (exit 2, usage shown)", async () => {
    const run = await admin("partner", "create", "--owner-email", "a@example.com");
    expectRefusal(run, 2, "--name is required");
    expect(run.stderr).toContain(
      "usage: npm run admin -- partner create --name <name> --owner-email <email>",
    );
  });
});

describe("admin CLI: partner settings", () => {
  it('pins a registered domain (normalized), lists it, and clears it with --domain "" or --clear', async () => {
    const partnerId = await newPartner();
    const pinned = json(
      await admin("partner", "set-domain", "--partner", partnerId, "--domain", "Acme.Example"),
    );
    expect(pinned).toMatchObject({ partner_id: partnerId, registered_domain: "acme.example" });
    const listed = json<{ partner_id: string }[]>(await admin("partner", "list"));
    expect(listed.find((partner) => partner.partner_id === partnerId)).toEqual(pinned);

    const cleared = json(
      await admin("partner", "set-domain", "--partner", partnerId, "--domain", ""),
    );
    expect(cleared.registered_domain).toBeNull();
    await admin("partner", "set-domain", "--partner", partnerId, "--domain", "acme.example");
    expect(
      json(await admin("partner", "set-domain", "--partner", partnerId, "--clear"))
        .registered_domain,
    ).toBeNull();
  });

  it.concurrent.each<[string, string, string]>([
    ["a URL", "https://acme.example/", "must be a bare domain, without a scheme"],
    ["a port", "acme.example:443", "must be a bare domain, without a port"],
    ["a single label", "localhost", "must have at least two labels"],
    ["an IP address", "10.0.0.1", "must end in a top-level domain, not a number"],
    ["an underscore", "my_app.example", "may only contain letters, digits and hyphens"],
  ])("refuses %s as a domain (exit 1)", async (_, domain, message) => {
    const partnerId = await newPartner();
    expectRefusal(
      await admin("partner", "set-domain", "--partner", partnerId, "--domain", domain),
      1,
      `the registered domain ${JSON.stringify(domain)} ${message}`,
    );
  });

  it("refuses --domain together with --clear, and neither (exit 2)", async () => {
    const partnerId = await newPartner();
    const both = await admin(
      "partner",
      "set-domain",
      "--partner",
      partnerId,
      "--domain",
      "a.example",
      "--clear",
    );
    expectRefusal(both, 2, "give either --domain or --clear, not both");
    expect(both.stderr).toContain("usage: npm run admin -- partner set-domain --partner");
    expectRefusal(
      await admin("partner", "set-domain", "--partner", partnerId),
      2,
      "--domain or --clear is required",
    );
  });

  it("suspends and resumes a partner; a suspended partner's authorizations are refused", async () => {
    const partnerId = await newPartner();
    const suspended = json(await admin("partner", "suspend", "--partner", partnerId));
    expect(suspended).toMatchObject({ partner_id: partnerId, status: "suspended" });
    expect((await db().partner.findUniqueOrThrow({ where: { id: partnerId } })).status).toBe(
      "suspended",
    );
    // Suspending twice is not an error.
    expect(json(await admin("partner", "suspend", "--partner", partnerId)).status).toBe(
      "suspended",
    );
    const { client } = await createClient({ partnerId, redirectUris: [REDIRECT_URI] });
    // The pinned description, relayed as temporarily_unavailable (/docs/relay).
    const refused = await authorize(client.id);
    expect(refused.status).toBe(200);
    const html = await refused.text();
    expect(html).toContain('name="error" value="temporarily_unavailable"');
    expect(html).toContain(`name="error_description" value="${PARTNER_SUSPENDED}"`);

    const resumed = json(await admin("partner", "resume", "--partner", partnerId));
    expect(resumed).toMatchObject({ partner_id: partnerId, status: "active" });
    // Signed out and no longer refused: on to the login screen.
    const accepted = await authorize(client.id);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toMatch(/\/login\?returnUrl=/);
  });

  it("adds an owner by normalized email, creating the user, idempotently", async () => {
    const partnerId = await newPartner();
    const email = `Second-${tag()}@Example.COM`;
    const added = json<{ owner_emails: string[] }>(
      await admin("partner", "add-owner", "--partner", partnerId, "--email", email),
    );
    expect(added).toMatchObject({
      partner_id: partnerId,
      owner_email: email.toLowerCase(),
      owner_added: true,
    });
    expect(added.owner_emails).toHaveLength(2);
    expect(added.owner_emails[1]).toBe(email.toLowerCase());

    const again = json(
      await admin("partner", "add-owner", "--partner", partnerId, "--email", email.toLowerCase()),
    );
    expect(again).toMatchObject({ owner_emails: added.owner_emails, owner_added: false });
    expect(await db().user.count({ where: { email: email.toLowerCase() } })).toBe(1);
  });

  it.concurrent.each<[string, string[]]>([
    ["set-domain", ["--domain", "acme.example"]],
    ["suspend", []],
    ["resume", []],
    ["add-owner", ["--email", "x@example.com"]],
  ])("partner %s refuses an unknown partner (exit 1)", async (command, args) => {
    const partnerId = randomUUID();
    expectRefusal(
      await admin("partner", command, "--partner", partnerId, ...args),
      1,
      `no partner with id "${partnerId}"`,
    );
  });

  it("refuses a bad owner email (exit 1) and a missing --email or --partner (exit 2)", async () => {
    const partnerId = await newPartner();
    expectRefusal(
      await admin("partner", "add-owner", "--partner", partnerId, "--email", "nope"),
      1,
      'the owner email "nope" is not a valid email address',
    );
    expectRefusal(
      await admin("partner", "add-owner", "--partner", partnerId),
      2,
      "--email is required",
    );
    expectRefusal(await admin("partner", "suspend"), 2, "--partner is required");
  });
});

describe("admin CLI: clients", () => {
  it("creates a client with two redirect URIs, prints the secret once and stores only its hash", async () => {
    const partnerId = await newPartner();
    const uris = ["https://budget.example/callback", "http://localhost:5173/callback"];
    const created = json<{ client_id: string; client_secret: string }>(
      await admin(
        "client",
        "create",
        "--partner",
        partnerId,
        "--redirect-uri",
        uris[0]!,
        "--redirect-uri",
        uris[1]!,
        "--name",
        "Budget",
      ),
    );
    expect(created).toMatchObject({ partner_id: partnerId, name: "Budget", redirect_uris: uris });
    expect(created.client_id).toMatch(/^obc_[A-Za-z0-9]{24}$/);
    expect(created.client_secret).toMatch(/^obs_[A-Za-z0-9_-]{43}$/);

    const stored = await db().client.findUniqueOrThrow({ where: { id: created.client_id } });
    expect(stored.secretHash).toBe(hashClientSecret(created.client_secret));
    expect(JSON.stringify(stored)).not.toContain(created.client_secret.slice(4));
    expect(stored.redirectUris).toEqual(uris);

    const listed = json<Record<string, unknown>[]>(
      await admin("client", "list", "--partner", partnerId),
    );
    expect(listed).toEqual([
      expect.objectContaining({
        client_id: created.client_id,
        name: "Budget",
        redirect_uris: uris,
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain("obs_");
  });

  it("refuses a client for a partner without a recipient key when one is required (exit 1, says to install it first)", async () => {
    const partnerId = await newPartner();
    const required = { RECIPIENT_KEY_REQUIRED: "true" };
    const args = ["client", "create", "--partner", partnerId, "--redirect-uri", REDIRECT_URI];
    const refused = await adminWith(required, ...args);
    expectRefusal(refused, 1, "install the partner's recipient key first");
    expect(refused.stderr).toContain("/dashboard");
    expect(await db().client.count({ where: { partnerId } })).toBe(0);

    await db().partner.update({
      where: { id: partnerId },
      data: { recipientPublicKey: generateKeyPair().publicKeyRawB64 },
    });
    expect(json(await adminWith(required, ...args))).toMatchObject({ partner_id: partnerId });
    // Without the setting, a partner without a key still gets clients (it relays users' keys).
    expect(
      json(
        await admin(
          "client",
          "create",
          "--partner",
          await newPartner(),
          "--redirect-uri",
          REDIRECT_URI,
        ),
      ),
    ).toMatchObject({ name: expect.any(String) as unknown });
  }, 120_000);

  it("creates a house client without --partner", async () => {
    const created = json(
      await admin("client", "create", "--redirect-uri", "https://house.example/cb"),
    );
    expect(created).toMatchObject({ partner_id: null, name: "House client" });
  });

  it("rotates a secret: prints the new one and when the previous one expires", async () => {
    const partnerId = await newPartner();
    const created = json<{ client_id: string; client_secret: string }>(
      await admin(
        "client",
        "create",
        "--partner",
        partnerId,
        "--redirect-uri",
        "https://r.example/cb",
      ),
    );
    const before = Date.now();
    const rotated = json<{
      client_id: string;
      client_secret: string;
      previous_secret_expires_at: string;
    }>(await admin("client", "rotate-secret", "--client", created.client_id));
    expect(rotated.client_id).toBe(created.client_id);
    expect(rotated.client_secret).not.toBe(created.client_secret);
    const expiry = Date.parse(rotated.previous_secret_expires_at);
    expect(expiry).toBeGreaterThanOrEqual(before + PREVIOUS_SECRET_GRACE_MS);
    expect(expiry).toBeLessThan(Date.now() + PREVIOUS_SECRET_GRACE_MS);

    const stored = await db().client.findUniqueOrThrow({ where: { id: created.client_id } });
    expect(verifyClientSecret(stored, rotated.client_secret, new Date())).toBe(true);
    expect(verifyClientSecret(stored, created.client_secret, new Date())).toBe(true);
    expect(verifyClientSecret(stored, created.client_secret, new Date(expiry))).toBe(false);
  });

  it("accepts a legacy --id once and refuses it as a duplicate after (exit 1)", async () => {
    const id = `legacy-${tag()}`;
    expect(
      json(await admin("client", "create", "--id", id, "--redirect-uri", "https://l.example/cb"))
        .client_id,
    ).toBe(id);
    expectRefusal(
      await admin("client", "create", "--id", id, "--redirect-uri", "https://l.example/cb"),
      1,
      "already exists",
    );
  });

  const ELEVEN = Array.from({ length: 11 }, (_, i) => [
    "--redirect-uri",
    `https://e.example/cb/${i}`,
  ]).flat();

  it.concurrent.each<[string, string[], string]>([
    [
      "a duplicate URI",
      ["--redirect-uri", "https://d.example/cb", "--redirect-uri", "https://d.example/cb"],
      '"https://d.example/cb": is listed more than once',
    ],
    ["a malformed URI", ["--redirect-uri", "https://exa mple.com/cb"], "must not contain spaces"],
    ["a relative URI", ["--redirect-uri", "/callback"], '"/callback": is not an absolute URL'],
    ["11 URIs", ELEVEN, "at most 10 redirect URIs"],
    [
      "http on a remote host",
      ["--redirect-uri", "http://example.com/cb"],
      "http:// is only allowed for loopback hosts",
    ],
    ["a fragment", ["--redirect-uri", "https://f.example/cb#"], "must not contain a fragment"],
    [
      "credentials",
      ["--redirect-uri", "https://user:pw@c.example/cb"],
      "must not contain credentials",
    ],
    ["a custom scheme", ["--redirect-uri", "myapp://callback"], "must use https://"],
  ])("refuses %s (exit 1)", async (_, args, message) => {
    expectRefusal(await admin("client", "create", ...args), 1, message);
  });

  it("refuses an unknown partner (exit 1)", async () => {
    expectRefusal(
      await admin(
        "client",
        "create",
        "--partner",
        randomUUID(),
        "--redirect-uri",
        "https://u.example/cb",
      ),
      1,
      "no partner with id",
    );
    expectRefusal(
      await admin("client", "list", "--partner", "acme"),
      1,
      'no partner with id "acme"',
    );
  });

  it("refuses rotating an unknown client (exit 1)", async () => {
    expectRefusal(
      await admin("client", "rotate-secret", "--client", "obc_nope_nope_nope"),
      1,
      "no client with id",
    );
  });

  it("refuses a missing --redirect-uri (exit 2)", async () => {
    expectRefusal(
      await admin("client", "create", "--name", "X"),
      2,
      "at least one --redirect-uri is required",
    );
  });
});

describe("admin CLI: mail", () => {
  it("prints the newest outbox message to an address, with its link and code", async () => {
    const to = `mail-${tag()}@example.com`;
    const outbox = new OutboxMailer();
    const mail = (subject: string, code: string) => ({
      to,
      subject,
      text: `text ${code}`,
      html: `<p>${code}</p>`,
      link: `http://localhost:3000/login/link?token=${code}`,
      code,
    });
    await outbox.send(mail("older", "111111"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await outbox.send(mail("newer", "222222"));

    const printed = json(await admin("mail", "last", "--to", to.toUpperCase()));
    expect(printed).toEqual({ ...mail("newer", "222222"), sentAt: expect.any(String) });
    expect(Date.parse(String(printed.sentAt))).not.toBeNaN();
  });

  it("refuses an address without mail (exit 1)", async () => {
    const to = `nobody-${tag()}@example.com`;
    expectRefusal(await admin("mail", "last", "--to", to), 1, `no mail to ${to}`);
  });

  it("refuses a missing --to (exit 2)", async () => {
    expectRefusal(await admin("mail", "last"), 2, "--to is required");
  });
});

describe("admin CLI: usage errors (exit 2)", () => {
  it.concurrent.each<[string, string[], string]>([
    ["no command at all", [], "a command is required"],
    ["an unknown command", ["client", "delete"], 'unknown command "client delete"'],
    ["an unknown option", ["partner", "list", "--verbose"], "Unknown option '--verbose'"],
    ["an option without its value", ["client", "rotate-secret", "--client"], "argument missing"],
    ["a positional argument", ["partner", "list", "extra"], "Unexpected argument 'extra'"],
    [
      "a repeated single-valued option",
      ["partner", "create", "--name", "a", "--name", "b", "--owner-email", "a@example.com"],
      "--name may be given only once",
    ],
  ])("refuses %s", async (_, args, message) => {
    expectRefusal(await admin(...args), 2, message);
  });

  it("prints help with every command (exit 0)", async () => {
    const run = await admin("help");
    expect(run.code).toBe(0);
    for (const command of [
      "partner create",
      "partner list",
      "partner set-domain",
      "partner suspend",
      "partner resume",
      "partner add-owner",
      "client create",
      "client rotate-secret",
      "client list",
      "mail last",
    ]) {
      expect(run.stdout).toContain(command);
    }
  });
});
