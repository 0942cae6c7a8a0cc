/** The smallest Next.js application: one route handler and one empty page (the benchmarks' baselines). */
const config = { poweredByHeader: false };

export default config;
