// Builds the addon with the node-gyp that npm carries. Against the running
// Node's own headers when they are installed beside it (Debian's and
// NodeSource's packages put them in <prefix>/include/node), so no download
// is needed; otherwise node-gyp fetches the headers for this Node version.
// Without a C compiler the build fails: npm then skips this optional
// package and sealing uses node:crypto (lib/crypto/p256-agree.ts).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const prefix = path.resolve(path.dirname(process.execPath), "..");
const args = ["rebuild"];
if (existsSync(path.join(prefix, "include/node/node_api.h"))) {
  args.push(`--nodedir=${prefix}`);
}
const result = spawnSync("node-gyp", args, {
  stdio: "inherit",
  shell: process.platform === "win32",
});
process.exit(result.status ?? 1);
