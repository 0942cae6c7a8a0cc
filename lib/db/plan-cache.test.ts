import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { accountsRoute } from "../api/direct-routes";
import { findActiveApiKey } from "../keys/api-keys";
import { handleTokenRequest } from "../oauth/token";
import { accessMailsSettled } from "../oauth/access-mail";
import { connectedPartnerUser } from "../../test/bank-data";
import { issueCode, newVerifier, tokenRequest } from "../../test/oauth-fixtures";
import { disconnectDb, requestPool } from "./client";

/**
 * The hot statements are named prepared statements (lib/db/sql.ts):
 * PostgreSQL plans one for its first five runs, then keeps a generic plan
 * unless that plan looks costlier than the ones made for the actual values.
 * A statement it keeps re-planning pays the planner on every request: with
 * thousands of keys and codes stored, a lookup by `= ANY(array)` did, and
 * tripled the database's CPU per data request. This fills the key and code
 * tables to that size and reads the planner's own counters for the session.
 * (Lookups by a tenant or an account given as a parameter are left out:
 * their best plan depends on how many rows that tenant or account holds, so
 * re-planning them can be the planner's right choice. The accounts read
 * takes its tenant from the key it checks, so it has one plan.)
 */

interface PreparedRow {
  statement: string;
  generic_plans: number;
  custom_plans: number;
}

const RUNS = 15;
const FILLER_ROWS = 5000;

async function plansOf(fragment: string): Promise<PreparedRow> {
  // Statements one after another on an idle pool go to its most recently used connection.
  const { rows } = await requestPool().query<PreparedRow>(
    `SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements
      WHERE statement LIKE '%' || $1 || '%'`,
    [fragment],
  );
  expect(rows, `no prepared statement with ${fragment} in this session`).toHaveLength(1);
  return rows[0]!;
}

/** Revoked keys and spent codes of one tenant, as many as a busy partner leaves. */
async function fill(tenantId: string, clientId: string) {
  const pool = requestPool();
  const hashes = Array.from({ length: FILLER_ROWS }, () => randomBytes(16).toString("hex"));
  await pool.query(
    `INSERT INTO "ApiKey" ("id", "keyHash", "prefix", "tenantId", "clientId", "scope", "expiresAt", "revokedAt")
     SELECT gen_random_uuid(), h, 'filler', $1, $2, 'accounts', now(), now() FROM unnest($3::text[]) h`,
    [tenantId, clientId, hashes],
  );
  await pool.query(
    `INSERT INTO "AuthorizationCode" ("id", "codeHash", "clientId", "redirectUri", "codeChallenge",
                                      "scope", "tenantId", "expiresAt", "consumedAt")
     SELECT gen_random_uuid(), 'code-' || h, $2, 'https://filler.example', 'x', 'accounts', $1, now(), now()
       FROM unnest($3::text[]) h`,
    [tenantId, clientId, hashes],
  );
  await pool.query(`ANALYZE "ApiKey", "AuthorizationCode"`);
}

describe("the hot statements keep one generic plan per connection", () => {
  afterAll(() => disconnectDb());

  it("the API-key check, the accounts read that carries it, and the code redemption", async () => {
    const user = await connectedPartnerUser();
    await fill(user.tenantId, user.client.clientId);
    const codes = await Promise.all(
      Array.from({ length: RUNS }, async () => {
        const verifier = newVerifier();
        const { code } = await issueCode(user.client, verifier);
        return { code, verifier };
      }),
    );

    const accounts = () =>
      accountsRoute(
        new Request("http://localhost:3000/api/accounts", {
          headers: { Authorization: `Bearer ${user.key}` },
        }),
      );
    expect(await findActiveApiKey(user.key)).not.toBeNull();
    for (const { code, verifier } of codes) {
      await findActiveApiKey(user.key);
      expect((await accounts()).status).toBe(200);
      const exchanged = await handleTokenRequest(tokenRequest(user.client, code, verifier));
      expect(exchanged.status).toBe(200);
      await accessMailsSettled();
    }

    const lookups = [
      'JOIN "Tenant" t ON t."id" = k."tenantId"',
      'WITH "key" AS MATERIALIZED',
      'UPDATE "AuthorizationCode" c',
    ];
    for (const fragment of lookups) {
      const plans = await plansOf(fragment);
      expect(plans.custom_plans, plans.statement.slice(0, 300)).toBeLessThanOrEqual(5);
      expect(plans.generic_plans).toBeGreaterThanOrEqual(RUNS - 5);
    }
  });
});
