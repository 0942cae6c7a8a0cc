import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The addon's unit tests for sanitize.sh: only the files that drive it, and no
 * database (these tests need none, and PostgreSQL would start with the
 * sanitizer's runtime preloaded too).
 */
const root = path.resolve(import.meta.dirname, "../..");

export default defineConfig({
  root,
  resolve: { alias: { "@": root } },
  test: {
    include: ["lib/crypto/p256-agree.test.ts", "lib/crypto/envelope.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
  },
});
