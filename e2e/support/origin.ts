/** Where the journeys' own server listens (not the dev server's 3000). */
export const E2E_PORT = 3100;
export const E2E_ORIGIN = `http://localhost:${E2E_PORT}`;
