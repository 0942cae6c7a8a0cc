// postinstall: generate the Prisma client into lib/db/generated.
//
// Prisma's CLI wants its native schema engine even for `generate`, and cannot
// download it on machines that reach only the npm registry. `generate` never
// runs that engine, so any existing file satisfies the check (docs/architecture.md#stack).
// Runs before anything else is installed, hence plain Node and no lib/env.
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const prismaCli = path.join(root, "node_modules", "prisma", "build", "index.js");

const result = spawnSync(process.execPath, [prismaCli, "generate"], {
  cwd: root,
  stdio: "inherit",
  env: {
    // eslint-disable-next-line no-restricted-properties -- install-time script, before lib/env can load
    ...process.env,
    // eslint-disable-next-line no-restricted-properties -- install-time script, before lib/env can load
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
process.exit(result.status ?? 1);
