import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/** The import fences (docs/architecture.md#layout) fail the lint when broken. */
const eslint = new ESLint();

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId ?? "fatal");
}

describe("import fences", () => {
  it("lib/ may not import Next or React outside lib/http and lib/i18n", async () => {
    const code = 'import { NextResponse } from "next/server";\nexport const x = NextResponse;\n';
    expect(await ruleIds(code, "lib/oauth/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    expect(await ruleIds(code, "lib/http/fence-probe.ts")).not.toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });

  it("only lib/db may import the Prisma client", async () => {
    const code =
      'import { PrismaClient } from "../db/generated/client";\nexport const x = PrismaClient;\n';
    expect(await ruleIds(code, "lib/oauth/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    expect(await ruleIds(code, "app/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    const inDb =
      'import { PrismaClient } from "./generated/client";\nexport const x = PrismaClient;\n';
    expect(await ruleIds(inDb, "lib/db/fence-probe.ts")).not.toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });

  it("only lib/db may import the database driver", async () => {
    const code = 'import pg from "pg";\nexport const x = pg;\n';
    expect(await ruleIds(code, "lib/api/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    expect(await ruleIds(code, "app/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    expect(await ruleIds(code, "lib/db/fence-probe.ts")).not.toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });

  it("pages and route handlers do not query the database", async () => {
    const code = 'import { db } from "@/lib/db/client";\nexport const x = db;\n';
    expect(await ruleIds(code, "app/(flow)/consent/fence-probe.tsx")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    const sql = 'import { query } from "@/lib/db/sql";\nexport const x = query;\n';
    expect(await ruleIds(sql, "app/api/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    const viaLib =
      'import { connectedBanks } from "@/lib/flow/connections";\nexport const x = connectedBanks;\n';
    expect(await ruleIds(viaLib, "app/(flow)/consent/fence-probe.tsx")).not.toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });

  it("imports in lib/ point down the wings' floors, never up or across", async () => {
    const up = 'import { createFlow } from "../flow/flows";\nexport const x = createFlow;\n';
    expect(await ruleIds(up, "lib/oauth/fence-probe.ts")).toContain("import/no-restricted-paths");
    const across = 'import { connect } from "../upstream";\nexport const x = connect;\n';
    expect(await ruleIds(across, "lib/mail/fence-probe.ts")).toContain(
      "import/no-restricted-paths",
    );
    const deep =
      'import { isValidCsrfToken } from "../../flow/csrf";\nexport const x = isValidCsrfToken;\n';
    expect(await ruleIds(deep, "lib/upstream/sandbox/fence-probe.ts")).toContain(
      "import/no-restricted-paths",
    );
    const upToAccount =
      'import { endPartnerAccess } from "../account/end-access";\nexport const x = endPartnerAccess;\n';
    expect(await ruleIds(upToAccount, "lib/flow/fence-probe.ts")).toContain(
      "import/no-restricted-paths",
    );
    const down = 'import { OAuthError } from "../oauth/errors";\nexport const x = OAuthError;\n';
    expect(await ruleIds(down, "lib/flow/fence-probe.ts")).not.toContain(
      "import/no-restricted-paths",
    );
    const inside = 'import { OAuthError } from "./errors";\nexport const x = OAuthError;\n';
    expect(await ruleIds(inside, "lib/oauth/fence-probe.ts")).not.toContain(
      "import/no-restricted-paths",
    );
  });

  it("type-only imports of generated models are allowed", async () => {
    const code = 'import type { Client } from "../db/generated/client";\nexport type X = Client;\n';
    expect(await ruleIds(code, "lib/oauth/fence-probe.ts")).not.toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });

  it("only lib/env.ts reads process.env", async () => {
    const code = "export const port = process.env.PORT;\n";
    expect(await ruleIds(code, "lib/oauth/fence-probe.ts")).toContain("no-restricted-properties");
    expect(await ruleIds(code, "scripts/fence-probe.ts")).toContain("no-restricted-properties");
    expect(await ruleIds(code, "lib/env.ts")).not.toContain("no-restricted-properties");
  });

  it("hand-written statements live only in query modules (docs/database.md)", async () => {
    const rule = "@typescript-eslint/no-restricted-imports";
    const tag = 'import { sql } from "../db/sql";\nexport const x = sql`SELECT 1`;\n';
    expect(await ruleIds(tag, "lib/oauth/fence-probe.ts")).toContain(rule);
    expect(await ruleIds(tag, "lib/oauth/queries.ts")).not.toContain(rule);
    expect(await ruleIds(tag, "lib/banking/queries/fence-probe.ts")).not.toContain(rule);
    const typeOnly = 'import type { Statement } from "../db/sql";\nexport type X = Statement;\n';
    expect(await ruleIds(typeOnly, "lib/oauth/fence-probe.ts")).not.toContain(rule);
  });

  it("only lib/db/sql.ts runs Prisma's raw statements", async () => {
    const rule = "no-restricted-properties";
    for (const method of ["$queryRaw", "$executeRaw", "$queryRawUnsafe", "$executeRawUnsafe"]) {
      const code = `declare const tx: Record<string, unknown>;\nexport const x = tx.${method};\n`;
      expect(await ruleIds(code, "lib/banking/fence-probe.ts"), method).toContain(rule);
      expect(await ruleIds(code, "lib/oauth/queries.ts"), method).toContain(rule);
      expect(await ruleIds(code, "app/api/fence-probe.ts"), method).toContain(rule);
      expect(await ruleIds(code, "lib/db/sql.ts"), method).not.toContain(rule);
    }
  });

  it("product code may not depend on tooling", async () => {
    const code = 'import { seedDemo } from "../../scripts/lib/seed";\nexport const x = seedDemo;\n';
    expect(await ruleIds(code, "lib/oauth/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });

  it("hashes are compared only through the constant-time helper", async () => {
    const rule = "no-restricted-syntax";
    const byOperator =
      "declare const row: { uidHash: string };\nexport const same = (uid: string) => uid !== row.uidHash;\n";
    expect(await ruleIds(byOperator, "lib/banking/fence-probe.ts")).toContain(rule);
    const byName = "export const same = (a: string, secretHash: string) => secretHash === a;\n";
    expect(await ruleIds(byName, "scripts/lib/fence-probe.ts")).toContain(rule);
    const rawTimingSafe =
      'import { timingSafeEqual } from "node:crypto";\nexport const same = timingSafeEqual;\n';
    expect(await ruleIds(rawTimingSafe, "lib/oauth/fence-probe.ts")).toContain(rule);
    expect(await ruleIds(rawTimingSafe, "app/fence-probe.ts")).toContain(rule);
    // A null check on a hash column is not a comparison of secrets.
    const nullCheck =
      "export const has = (row: { identityHash: string | null }) => row.identityHash !== null;\n";
    expect(await ruleIds(nullCheck, "lib/banking/fence-probe.ts")).not.toContain(rule);
    const helper =
      'import { timingSafeEqualString } from "../crypto/constant-time";\nexport const same = (a: string, uidHash: string) => timingSafeEqualString(a, uidHash);\n';
    expect(await ruleIds(helper, "lib/banking/fence-probe.ts")).not.toContain(rule);
  });
});
