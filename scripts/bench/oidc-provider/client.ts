/** The one client of the oidc-provider baseline, known to its server and to the benchmark. */
export const BENCH_CLIENT = {
  client_id: "bench-client",
  client_secret: "bench-client-secret-with-enough-entropy-0123456789",
  redirect_uri: "https://app.example.com/callback",
};
