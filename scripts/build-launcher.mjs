// `npm run build`, after `next build`: the launcher (scripts/launch.ts and what it imports from
// lib/ and scripts/lib/) compiled ahead of time into one CommonJS file in the build directory,
// which `npm start` runs with plain Node: no TypeScript compiler is loaded at run time, and the
// packages it shares with Next's server bundle (Prisma's runtime, pg, next) are one instance,
// required from node_modules as Next requires them.
import path from "node:path";
import { build } from "esbuild";

// The same build directory as next.config.ts and the launcher read (NEXT_DIST_DIR, default .next).
// eslint-disable-next-line no-restricted-properties -- a build step in plain Node, before any TypeScript
const distDir = process.env.NEXT_DIST_DIR || ".next";

await build({
  entryPoints: ["scripts/launch.ts"],
  // Two levels below the repository, as scripts/lib/ is: paths resolved from a module's own
  // directory (the repository root, node_modules) hold in the bundle as in the source.
  outfile: path.join(distDir, "launcher", "launch.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  packages: "external",
  define: { "import.meta.dirname": "__dirname", "import.meta.url": "__launcherUrl" },
  banner: { js: 'const __launcherUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});
