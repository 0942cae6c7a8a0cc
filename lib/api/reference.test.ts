import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi";
import { buildReference } from "./reference";

describe("the API reference's model", () => {
  const groups = buildReference();
  const operations = groups.flatMap((group) => group.operations);

  it("has every operation of the OpenAPI document once, under a unique anchor, an alias named on its operation", () => {
    const document = openApiDocument() as unknown as {
      paths: Record<string, Record<string, { "x-alias-of"?: string }>>;
    };
    const all = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path}`,
        aliasOf: operation["x-alias-of"]
          ? `${method.toUpperCase()} ${operation["x-alias-of"]}`
          : null,
      })),
    );
    expect(operations.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(
      all
        .filter((operation) => !operation.aliasOf)
        .map((operation) => operation.key)
        .sort(),
    );
    const named = operations.flatMap((operation) =>
      operation.aliases.map((alias) => ({
        key: `${operation.method} ${alias}`,
        aliasOf: `${operation.method} ${operation.path}`,
      })),
    );
    expect(named).toEqual(all.filter((operation) => operation.aliasOf));
    expect(new Set(operations.map((operation) => operation.id)).size).toBe(operations.length);
  });

  it("lists the recipient-key endpoints once, naming their older paths as aliases", () => {
    const install = operations.filter((operation) => operation.summary.includes("decryption key"));
    expect(install.map((operation) => `${operation.method} ${operation.path}`)).toEqual([
      "PUT /api/partner/recipient-key",
    ]);
    expect(install[0]?.aliases).toEqual(["/api/partners/mine/recipient-key"]);
    const challenge = operations.find(
      (operation) => operation.path === "/api/partner/recipient-key/challenge",
    );
    expect(challenge?.aliases).toEqual(["/api/partners/mine/recipient-key/challenge"]);
    expect(operations.some((operation) => operation.path.startsWith("/api/partners/mine"))).toBe(
      false,
    );
    // The document itself still describes both paths, each alias marked.
    const { paths } = openApiDocument() as unknown as {
      paths: Record<string, Record<string, { "x-alias-of"?: string }>>;
    };
    expect(paths["/api/partners/mine/recipient-key"]?.put?.["x-alias-of"]).toBe(
      "/api/partner/recipient-key",
    );
    expect(paths["/api/partner/recipient-key"]?.put?.["x-alias-of"]).toBeUndefined();
  });

  it("shows bodies as they go on the wire, with their fields", () => {
    const token = operations.find((operation) => operation.id === "post-oauth-token");
    expect(token?.request?.example?.split("\n")[0]).toBe("grant_type=authorization_code");
    expect(token?.auth).toEqual([
      "HTTP Basic (client id and secret)",
      "client_id and client_secret in the form",
    ]);
    const sync = operations.find((operation) => operation.id === "post-api-accounts-id-sync");
    expect(sync?.request?.fields).toEqual([
      {
        name: "uid",
        type: "string",
        required: true,
        description: "The account's uid, decrypted from uidEnc",
      },
    ]);
    const ok = sync?.responses.find((response) => response.status === "200");
    expect(JSON.parse(ok?.body?.example ?? "null")).toEqual({
      newTransactions: 3,
      totalFetched: 27,
    });
    // Integers' generated safe-integer bounds are not shown; real limits are.
    expect(ok?.body?.fields.map((field) => field.description)).toEqual(["", ""]);
    const transactions = operations.find(
      (operation) => operation.id === "get-api-accounts-id-transactions",
    );
    const limit = transactions?.parameters.find((parameter) => parameter.name === "limit");
    expect(limit?.description).toContain("From 1 to 500.");
  });
});
