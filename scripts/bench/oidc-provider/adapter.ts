import pg from "pg";

/**
 * A minimal PostgreSQL adapter for panva's oidc-provider (its adapter
 * interface: upsert, find, findByUid, findByUserCode, consume, destroy,
 * revokeByGrantId), in the shape of the project's own example adapters: one
 * table of JSON payloads keyed by id and model name. Only the benchmarks'
 * baseline uses it.
 */

const TABLE = `CREATE TABLE IF NOT EXISTS oidc_payloads (
  id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (id, type)
);
CREATE INDEX IF NOT EXISTS oidc_payloads_grant_id ON oidc_payloads (grant_id);
CREATE INDEX IF NOT EXISTS oidc_payloads_uid ON oidc_payloads (uid);
CREATE INDEX IF NOT EXISTS oidc_payloads_user_code ON oidc_payloads (user_code);`;

type Payload = Record<string, unknown> & {
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: boolean;
};

let pool: pg.Pool | undefined;

export async function connectAdapter(databaseUrl: string, max: number): Promise<void> {
  pool = new pg.Pool({ connectionString: databaseUrl, max });
  pool.on("error", () => undefined);
  await pool.query(TABLE);
}

function db(): pg.Pool {
  if (!pool) throw new Error("the adapter is not connected");
  return pool;
}

const withConsumed = (row: { payload: Payload; consumed_at: Date | null } | undefined) =>
  row ? { ...row.payload, ...(row.consumed_at ? { consumed: true } : {}) } : undefined;

export class PostgresAdapter {
  constructor(private readonly type: string) {}

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    await db().query(
      `INSERT INTO oidc_payloads (id, type, payload, grant_id, user_code, uid, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id, type) DO UPDATE SET payload = EXCLUDED.payload,
         grant_id = EXCLUDED.grant_id, user_code = EXCLUDED.user_code, uid = EXCLUDED.uid,
         expires_at = EXCLUDED.expires_at`,
      [
        id,
        this.type,
        payload,
        payload.grantId ?? null,
        payload.userCode ?? null,
        payload.uid ?? null,
        expiresAt,
      ],
    );
  }

  private async findBy(column: "id" | "uid" | "user_code", value: string) {
    const { rows } = await db().query<{ payload: Payload; consumed_at: Date | null }>(
      `SELECT payload, consumed_at FROM oidc_payloads
        WHERE ${column} = $1 AND type = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [value, this.type],
    );
    return withConsumed(rows[0]);
  }

  find(id: string) {
    return this.findBy("id", id);
  }

  findByUid(uid: string) {
    return this.findBy("uid", uid);
  }

  findByUserCode(userCode: string) {
    return this.findBy("user_code", userCode);
  }

  async consume(id: string): Promise<void> {
    await db().query(`UPDATE oidc_payloads SET consumed_at = now() WHERE id = $1 AND type = $2`, [
      id,
      this.type,
    ]);
  }

  async destroy(id: string): Promise<void> {
    await db().query(`DELETE FROM oidc_payloads WHERE id = $1 AND type = $2`, [id, this.type]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await db().query(`DELETE FROM oidc_payloads WHERE grant_id = $1`, [grantId]);
  }
}
