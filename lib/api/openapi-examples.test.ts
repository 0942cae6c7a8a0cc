import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi";

interface MediaType {
  schema?: object;
  example?: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

const document = openApiDocument() as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: object;
};

/**
 * A validator for one media type's schema, with the document's components
 * beside it so that its `#/components/schemas/…` references resolve.
 */
function validatorFor(ajv: Ajv2020, schema: object): ValidateFunction {
  return ajv.compile({ ...schema, components: document.components });
}

function newAjv(): Ajv2020 {
  // Not strict: the wrapper carries `components`, which is not a JSON Schema keyword.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv;
}

/** Every media type of every operation: where it is, and what it holds. */
function mediaTypes() {
  const found: { where: string; media: MediaType }[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const name = `${method.toUpperCase()} ${route}`;
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        found.push({ where: `${name} request ${type}`, media });
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          found.push({ where: `${name} ${status} ${type}`, media });
        }
      }
    }
  }
  return found;
}

describe("/openapi.json examples", () => {
  it("every operation has a response example, and one for its request body if it takes one", () => {
    const missing: string[] = [];
    for (const [route, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${route}`;
        const responses = Object.values(operation.responses).flatMap((response) =>
          Object.values(response.content ?? {}),
        );
        if (!responses.some((media) => media.example !== undefined)) {
          missing.push(`${name}: no response example`);
        }
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
          if (media.example === undefined) missing.push(`${name}: no ${type} request example`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("every body the document describes has an example", () => {
    const missing = mediaTypes()
      .filter(({ media }) => media.schema && media.example === undefined)
      .map(({ where }) => where);
    expect(missing).toEqual([]);
  });

  it("every example is valid against its own schema, references resolved", () => {
    const ajv = newAjv();
    const invalid: string[] = [];
    let checked = 0;
    for (const { where, media } of mediaTypes()) {
      if (!media.schema || media.example === undefined) continue;
      const validate = validatorFor(ajv, media.schema);
      checked += 1;
      if (!validate(media.example)) {
        invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(invalid).toEqual([]);
    expect(checked).toBeGreaterThan(60);
  });

  it("the validation sees through references: a wrong example is refused", () => {
    const ajv = newAjv();
    const token = document.paths["/oauth/token"]?.post?.responses["200"]?.content?.[
      "application/json"
    ] as MediaType;
    const validate = validatorFor(ajv, token.schema ?? {});
    expect(validate(token.example)).toBe(true);
    expect(validate({ ...(token.example as object), expires_in: "one year" })).toBe(false);
    const { user: _user, ...withoutUser } = token.example as Record<string, unknown>;
    expect(validate(withoutUser)).toBe(false);
    const accounts = document.paths["/api/accounts"]?.get?.responses["200"]?.content?.[
      "application/json"
    ] as MediaType;
    const validateAccounts = validatorFor(ajv, accounts.schema ?? {});
    expect(validateAccounts([{ id: "only an id" }])).toBe(false);
  });
});
