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

  it("product code may not depend on tooling", async () => {
    const code = 'import { seedDemo } from "../../scripts/lib/seed";\nexport const x = seedDemo;\n';
    expect(await ruleIds(code, "lib/oauth/fence-probe.ts")).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
  });
});
