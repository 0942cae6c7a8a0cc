import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi";
import { buildReference } from "./reference";

describe("the API reference's model", () => {
  const groups = buildReference();
  const operations = groups.flatMap((group) => group.operations);

  it("has every operation of the OpenAPI document once, under a unique anchor", () => {
    const document = openApiDocument() as unknown as { paths: Record<string, object> };
    const expected = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(
      expected.sort(),
    );
    expect(new Set(operations.map((operation) => operation.id)).size).toBe(operations.length);
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
