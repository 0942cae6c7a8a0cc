import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// Import fences (docs/architecture.md#layout): lib/ is the product and stays framework-free
// except its http and i18n glue; only lib/db touches Prisma; only lib/env.ts
// reads process.env.
const FRAMEWORK_IMPORTS = {
  group: [
    "next",
    "next/*",
    "react",
    "react/*",
    "react-dom",
    "react-dom/*",
    "next-intl",
    "next-intl/*",
  ],
  message: "lib/ is framework-free: keep next/react in app/, lib/http or lib/i18n.",
};
const PRISMA_IMPORTS = {
  group: [
    "@prisma/client",
    "@prisma/client/*",
    "@prisma/adapter-pg",
    "**/db/generated",
    "**/db/generated/*",
    "**/generated/client",
  ],
  message: "Only lib/db may touch the Prisma client; call lib/db instead.",
  allowTypeImports: true,
};
const DRIVER_IMPORTS = {
  group: ["pg", "pg/*", "pg-pool", "pg-protocol"],
  message: "Only lib/db may touch the database driver; write SQL with lib/db/sql.ts.",
  allowTypeImports: true,
};
const TOOLING_IMPORTS = {
  group: ["**/scripts/*", "**/scripts/**", "**/e2e/*", "**/test/*"],
  message: "Product code must not depend on tooling (scripts/, e2e/, test/).",
};

const PROCESS_ENV_RULES = {
  "no-restricted-properties": [
    "error",
    {
      object: "process",
      property: "env",
      message: "Read settings through lib/env.ts (the only reader of process.env).",
    },
  ],
};

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    "**/.next/**",
    ".data/**",
    "node_modules/**",
    "lib/db/generated/**",
    "next-env.d.ts",
    "playwright-report/**",
    "test-results/**",
  ]),
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      eqeqeq: ["error", "always"],
    },
  },
  {
    files: ["**/*.{ts,tsx,mts,mjs,js}"],
    ignores: ["lib/env.ts"],
    rules: PROCESS_ENV_RULES,
  },
  {
    files: ["lib/**/*.{ts,tsx}"],
    ignores: ["lib/http/**", "lib/i18n/**", "lib/db/**"],
    rules: {
      "no-restricted-imports": "off",
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [FRAMEWORK_IMPORTS, PRISMA_IMPORTS, DRIVER_IMPORTS, TOOLING_IMPORTS] },
      ],
    },
  },
  {
    files: ["lib/http/**/*.{ts,tsx}", "lib/i18n/**/*.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [PRISMA_IMPORTS, DRIVER_IMPORTS, TOOLING_IMPORTS] },
      ],
    },
  },
  {
    files: ["lib/db/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [FRAMEWORK_IMPORTS, TOOLING_IMPORTS] },
      ],
    },
  },
  {
    files: ["scripts/**/*.ts", "e2e/**/*.ts", "test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [PRISMA_IMPORTS] }],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [PRISMA_IMPORTS, DRIVER_IMPORTS, TOOLING_IMPORTS] },
      ],
    },
  },
  {
    // The migration runner drives Prisma's schema engine through the driver
    // adapter directly: it runs before any Prisma client can exist.
    files: ["scripts/lib/schema-engine.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": "off" },
  },
  {
    // Tests may use tooling (scripts/, test/) to set up real servers and data.
    files: ["**/*.test.ts", "**/*.test.tsx"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [PRISMA_IMPORTS] }],
    },
  },
]);
