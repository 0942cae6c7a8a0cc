import { defineConfig } from "prisma/config";

// The Prisma CLI is used only for `prisma generate`; migrations are applied by
// scripts/migrate.ts through Prisma's WebAssembly schema engine (docs/architecture.md#stack).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
