import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// Import fences (docs/architecture.md#layout): lib/ is the product and stays framework-free
// except its http and i18n glue; only lib/db touches Prisma; only lib/env.ts
// reads process.env.
// The wings of lib/, from the top floor down: a wing imports only wings on
// floors below its own, so every import points down (docs/architecture.md#layout).
// A new wing takes the floor above everything it uses.
const LIB_FLOORS = [
  ["account"],
  ["flow"],
  ["api"],
  ["partners"],
  ["oauth"],
  ["auth", "banking", "keys"],
  ["analytics", "audit", "demo", "mail", "upstream"],
  ["http"],
  ["db", "ratelimit"],
  ["tracing"],
  ["crypto", "log"],
  ["docs", "env", "i18n", "metrics", "request-context"],
];
const wingPath = (wing) =>
  ["env", "log", "request-context"].includes(wing) ? `./lib/${wing}.ts` : `./lib/${wing}`;
const IMPORT_DIRECTION_ZONES = LIB_FLOORS.flatMap((floor, index) =>
  floor.map((wing) => ({
    target: wingPath(wing),
    from: LIB_FLOORS.slice(0, index + 1)
      .flat()
      .filter((other) => other !== wing)
      .map(wingPath),
    message: `lib/${wing} may import only the wings on floors below its own (eslint.config.mjs, LIB_FLOORS).`,
  })),
);

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
const QUERY_IMPORTS = {
  group: ["@/lib/db/client", "@/lib/db/sql", "**/lib/db/client", "**/lib/db/sql"],
  message: "Pages and route handlers do not query the database: call a function of lib/.",
  allowTypeImports: true,
};
const SQL_IMPORTS = {
  group: ["@/lib/db/sql", "**/db/sql"],
  message:
    "Hand-written statements live in the aggregate's query module (queries.ts or queries/): docs/database.md#hand-written-statements.",
  allowTypeImports: true,
};
const TOOLING_IMPORTS = {
  group: ["**/scripts/*", "**/scripts/**", "**/e2e/*", "**/test/*"],
  message: "Product code must not depend on tooling (scripts/, e2e/, test/).",
};

// Keyed hashes and MACs are compared in constant time, through one helper
// (lib/crypto/constant-time.ts): never with `===`/`!==`, never with a
// hand-rolled timingSafeEqual that leaks the length or throws on it.
const HASH_NAME = "/[Hh]ash$/";
const NOT_A_NULL_CHECK =
  ':not([left.type="Literal"]):not([right.type="Literal"]):not([left.type="Identifier"][left.name="undefined"]):not([right.type="Identifier"][right.name="undefined"])';
const CONSTANT_TIME_RULES = {
  "no-restricted-syntax": [
    "error",
    {
      selector: `BinaryExpression[operator=/^[!=]==?$/]:matches([left.name=${HASH_NAME}], [right.name=${HASH_NAME}], [left.property.name=${HASH_NAME}], [right.property.name=${HASH_NAME}])${NOT_A_NULL_CHECK}`,
      message: "Compare hashes with timingSafeEqualString (lib/crypto/constant-time.ts).",
    },
    {
      selector:
        'ImportDeclaration[source.value=/^(node:)?crypto$/] ImportSpecifier[imported.name="timingSafeEqual"]',
      message:
        "Use timingSafeEqualString (lib/crypto/constant-time.ts), the one constant-time helper.",
    },
  ],
};

const PROCESS_ENV = {
  object: "process",
  property: "env",
  message: "Read settings through lib/env.ts (the only reader of process.env).",
};
const PROCESS_ENV_RULES = { "no-restricted-properties": ["error", PROCESS_ENV] };

// Prisma's raw statements bypass the statement catalogue: lib/db/sql.ts runs
// the declared statements (queryIn, executeIn) and is the only caller.
const RAW_STATEMENT_RULES = {
  "no-restricted-properties": [
    "error",
    PROCESS_ENV,
    ...["$queryRaw", "$executeRaw", "$queryRawUnsafe", "$executeRawUnsafe"].map((property) => ({
      property,
      message:
        "Declare the statement in its aggregate's query module and run it with lib/db/sql.ts (docs/database.md#hand-written-statements).",
    })),
  ],
};

const QUERY_MODULES = ["lib/**/queries.ts", "lib/**/queries/*.ts"];

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
    // Tests set up their world across wings; the product's imports point down.
    files: ["lib/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts", "**/*.test.tsx"],
    rules: { "import/no-restricted-paths": ["error", { zones: IMPORT_DIRECTION_ZONES }] },
  },
  {
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "scripts/**/*.ts"],
    // The helper itself, and the partner examples that must stand alone.
    ignores: ["lib/crypto/constant-time.ts", "lib/docs/examples/**", "**/*.test.ts"],
    rules: CONSTANT_TIME_RULES,
  },
  {
    files: ["lib/**/*.{ts,tsx}"],
    ignores: ["lib/http/**", "lib/i18n/**", "lib/db/**"],
    rules: {
      "no-restricted-imports": "off",
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            FRAMEWORK_IMPORTS,
            PRISMA_IMPORTS,
            DRIVER_IMPORTS,
            SQL_IMPORTS,
            TOOLING_IMPORTS,
          ],
        },
      ],
    },
  },
  {
    files: QUERY_MODULES,
    ignores: ["lib/db/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [FRAMEWORK_IMPORTS, PRISMA_IMPORTS, DRIVER_IMPORTS, TOOLING_IMPORTS] },
      ],
    },
  },
  {
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}"],
    ignores: ["lib/db/sql.ts", "lib/env.ts", "**/*.test.ts", "**/*.test.tsx"],
    rules: RAW_STATEMENT_RULES,
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
        { patterns: [PRISMA_IMPORTS, DRIVER_IMPORTS, QUERY_IMPORTS, TOOLING_IMPORTS] },
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
