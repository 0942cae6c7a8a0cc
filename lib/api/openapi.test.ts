import { readdirSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { outsideScope } from "./route";
import { openApiDocument } from "./openapi";
import { MAX_OFFSET } from "./paging";

const APP = path.join(__dirname, "..", "..", "app");
const PUBLIC = /^\/(api|oauth|\.well-known|healthz|livez|readyz|logos|openapi\.json)(\/|$)/;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Every route.ts of a public path, as its OpenAPI path, with its real operations. */
async function publicOperations() {
  const files = readdirSync(APP, { recursive: true, encoding: "utf8" }).filter(
    (file) => path.basename(file) === "route.ts",
  );
  const operations: [string, string][] = [];
  for (const file of files) {
    const segments = path
      .dirname(file)
      .split(path.sep)
      .filter((segment) => !/^\(.*\)$/.test(segment));
    const route = `/${segments.join("/")}`;
    // The catch-all only refuses (/docs/data); the document itself is not an operation to list.
    if (!PUBLIC.test(route) || route.includes("[...") || route === "/openapi.json") continue;
    const routeModule = (await import(path.join(APP, file))) as Record<string, unknown>;
    const openApiPath = route.replace(/\[(\w+)\]/g, "{$1}");
    for (const method of METHODS) {
      const handler = routeModule[method];
      if (typeof handler === "function" && handler !== outsideScope) {
        operations.push([openApiPath, method.toLowerCase()]);
      }
    }
  }
  return operations;
}

type Parameter = { name: string; schema: { maximum?: number } };
type Operation = { parameters?: Parameter[]; responses: Record<string, { headers?: object }> };

describe("/openapi.json", () => {
  it("documents the paging parameters and the Link header of both lists", () => {
    const { paths } = openApiDocument() as unknown as {
      paths: Record<string, { get: Operation }>;
    };
    const transactions = paths["/api/accounts/{id}/transactions"]?.get;
    expect(transactions?.parameters?.map((parameter) => parameter.name)).toEqual([
      "id",
      "from",
      "to",
      "limit",
      "offset",
      "cursor",
    ]);
    expect(transactions?.parameters?.find((p) => p.name === "offset")?.schema.maximum).toBe(
      MAX_OFFSET,
    );
    const accounts = paths["/api/accounts"]?.get;
    expect(accounts?.parameters?.map((parameter) => parameter.name)).toEqual(["limit", "cursor"]);
    for (const operation of [transactions, accounts]) {
      expect(operation?.responses["200"]?.headers).toHaveProperty("Link");
    }
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(openApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("covers every public operation the app serves, and nothing it does not", async () => {
    const document = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const served = await publicOperations();
    expect(served.length).toBeGreaterThan(20);
    const documented = Object.entries(document.paths).flatMap(([route, item]) =>
      Object.keys(item).map((method) => [route, method] as [string, string]),
    );
    const key = ([route, method]: [string, string]) => `${method.toUpperCase()} ${route}`;
    expect(served.map(key).filter((op) => !documented.map(key).includes(op))).toEqual([]);
    expect(documented.map(key).filter((op) => !served.map(key).includes(op))).toEqual([]);
  });

  it("describes the data API with the schemas its handlers use", () => {
    const document = openApiDocument() as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(Object.keys(document.components.schemas.Account?.properties ?? {})).toEqual([
      "id",
      "aspspName",
      "aspspCountry",
      "currency",
      "accountType",
      "bic",
      "needsReconnect",
      "balances",
      "enc",
      "displayNameEnc",
      "uidEnc",
    ]);
    expect(document.components.schemas.SyncRequest?.properties).toHaveProperty("uid");
    expect(Object.keys(document.components.schemas.TransactionPage?.properties ?? {})).toEqual([
      "items",
      "total",
      "next",
    ]);
    expect(Object.keys(document.components.schemas.AccountPage?.properties ?? {})).toEqual([
      "items",
      "next",
    ]);
    // The OAuth and partner bodies come from the schemas their handlers are typed by.
    for (const id of [
      "TokenResponse",
      "Userinfo",
      "Partner",
      "BrandingRecord",
      "Client",
      "NewClient",
      "RecipientKeyChallenge",
    ]) {
      expect(Object.keys(document.components.schemas)).toContain(id);
    }
    expect(Object.keys(document.components.schemas.TokenResponse?.properties ?? {})).toEqual([
      "access_token",
      "token_type",
      "expires_in",
      "scope",
      "apiKey",
      "apiBaseUrl",
      "user",
    ]);
  });

  it("names each body schema once, by its zod id, closed as a body and as an answer", () => {
    const { components, paths } = openApiDocument() as unknown as {
      components: { schemas: Record<string, { additionalProperties?: unknown }> };
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    };
    const registered = [...z.globalRegistry._idmap.keys()];
    // Every component is a zod schema of that id; none is rendered twice (`…Output`).
    expect(Object.keys(components.schemas).filter((id) => !registered.includes(id))).toEqual([]);
    // Used as a request body (POST /api/sync) and inside answers, still one closed object.
    expect(components.schemas.BulkSyncRequest?.additionalProperties).toBe(false);
    expect(components.schemas.BrandingRecord?.additionalProperties).toBe(false);
    // A form body's unknown parameters are ignored: its schema stays open.
    const tokenForm = paths["/oauth/token"]?.post?.requestBody?.content[
      "application/x-www-form-urlencoded"
    ] as { schema: { additionalProperties?: unknown } };
    expect(tokenForm.schema).not.toHaveProperty("additionalProperties");
  });
});
