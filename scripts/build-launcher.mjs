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

// Packages published only as ES modules with a default export: required from CommonJS, Node
// hands back their namespace, whose `default` the bundle's interop would not unwrap, so they are
// compiled into the launcher instead (with their own dependencies).
const BUNDLED = new Set(["p-retry", "is-network-error"]);

/** Every other package stays a require() of node_modules, one instance shared with Next. */
const externalPackages = {
  name: "external-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.startsWith("@")
        ? args.path.split("/").slice(0, 2).join("/")
        : args.path.split("/")[0];
      return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

await build({
  entryPoints: ["scripts/launch.ts"],
  // Two levels below the repository, as scripts/lib/ is: paths resolved from a module's own
  // directory (the repository root, node_modules) hold in the bundle as in the source.
  outfile: path.join(distDir, "launcher", "launch.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  plugins: [externalPackages],
  define: { "import.meta.dirname": "__dirname", "import.meta.url": "__launcherUrl" },
  banner: { js: 'const __launcherUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});
