/** The smallest Next.js application: one route handler (the benchmarks' baseline). */
const config = { poweredByHeader: false };

export default config;
