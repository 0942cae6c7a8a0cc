import { openApiDocument } from "./openapi";

/**
 * The API reference page's model, read from the same OpenAPI document that
 * /openapi.json serves: groups of operations, each with its parameters,
 * bodies (fields and example) and answers. The page renders this on the
 * server, so it needs no script and cannot drift from the document.
 */

type Schema = Record<string, unknown>;

interface MediaObject {
  schema?: Schema;
  example?: unknown;
}

interface OperationObject {
  summary?: string;
  security?: Record<string, unknown>[];
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    schema?: Schema;
    description?: string;
  }[];
  requestBody?: { content?: Record<string, MediaObject> };
  responses: Record<string, { description: string; content?: Record<string, MediaObject> }>;
  /** The path this one is an alias of (the same handler). */
  "x-alias-of"?: string;
}

export interface Field {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface Body {
  mediaType: string;
  /** The schema's name in the document, when it has one. */
  schemaName: string | null;
  type: string;
  fields: Field[];
  example: string | null;
}

export interface ReferenceOperation {
  /** Anchor on the page, e.g. "get-api-accounts". */
  id: string;
  method: string;
  path: string;
  summary: string;
  auth: string[];
  parameters: (Field & { in: string })[];
  request: Body | null;
  responses: { status: string; description: string; body: Body | null }[];
  /** Other paths that serve this same operation (`x-alias-of` in the document). */
  aliases: string[];
}

export interface ReferenceGroup {
  id: string;
  title: string;
  operations: ReferenceOperation[];
}

const GROUPS: { id: string; title: string; matches: (path: string) => boolean }[] = [
  {
    id: "authorization",
    title: "Authorization (OAuth 2.0)",
    matches: (path) => path.startsWith("/oauth/") || path.startsWith("/.well-known/"),
  },
  {
    id: "data",
    title: "Data API (API key)",
    matches: (path) => /^\/api\/(accounts|connections|sync)/.test(path),
  },
  {
    id: "partner",
    title: "Partner dashboard API (owner session)",
    matches: (path) => path.startsWith("/api/partner") || path.startsWith("/api/connect/"),
  },
  { id: "service", title: "Service", matches: () => true },
];

const AUTH_NAMES: Record<string, string> = {
  apiKey: "X-Api-Key: ebk_…",
  bearer: "Authorization: Bearer ebk_…",
  basic: "HTTP Basic (client id and secret)",
  ownerSession: "The owner's dashboard session",
};

function refName(schema: Schema | undefined): string | null {
  const ref = schema?.$ref;
  return typeof ref === "string" ? (ref.split("/").pop() ?? null) : null;
}

/** A short type label: "string", "integer (1–500)", "Account[]", "\"code\"", "string | null". */
export function typeLabel(schema: Schema | undefined): string {
  if (!schema) return "any";
  const name = refName(schema);
  if (name) return name;
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum))
    return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const anyOf = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(anyOf)) return anyOf.map(typeLabel).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "any");
  if (type === "array") return `${typeLabel(schema.items as Schema | undefined)}[]`;
  const format = typeof schema.format === "string" ? ` (${schema.format})` : "";
  return `${type}${format}`;
}

function describe(schema: Schema | undefined): string {
  const notes: string[] = [];
  if (typeof schema?.description === "string") notes.push(schema.description);
  // An integer's safe-integer bounds (added by the schema generator) say nothing to a reader.
  const bound = (value: unknown) =>
    typeof value === "number" && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : null;
  const minimum = bound(schema?.minimum);
  const maximum = bound(schema?.maximum);
  if (minimum !== null && maximum !== null) notes.push(`From ${minimum} to ${maximum}.`);
  else if (minimum !== null) notes.push(`At least ${minimum}.`);
  if (schema?.default !== undefined) notes.push(`Default ${JSON.stringify(schema.default)}.`);
  return notes.join(" ");
}

export function buildReference(document = openApiDocument()): ReferenceGroup[] {
  const schemas = document.components.schemas as Record<string, Schema>;
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    const name = refName(schema);
    return name ? schemas[name] : schema;
  };

  const body = (mediaType: string, media: MediaObject): Body => {
    const resolved = resolve(media.schema);
    const properties = (resolved?.properties ?? {}) as Record<string, Schema>;
    const required = new Set((resolved?.required as string[] | undefined) ?? []);
    return {
      mediaType,
      schemaName: refName(media.schema),
      type: typeLabel(media.schema),
      fields: Object.entries(properties).map(([name, property]) => ({
        name,
        type: typeLabel(property),
        required: required.has(name),
        description: describe(property),
      })),
      example: exampleText(mediaType, media.example),
    };
  };

  const groups: ReferenceGroup[] = GROUPS.map(({ id, title }) => ({ id, title, operations: [] }));
  const paths = document.paths as unknown as Record<string, Record<string, OperationObject>>;
  // An alias is shown once, named on the operation it is an alias of.
  const aliases = new Map<string, string[]>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const of = operation["x-alias-of"];
      if (!of) continue;
      if (!paths[of]?.[method] || paths[of]?.[method]?.["x-alias-of"]) {
        throw new Error(`${method.toUpperCase()} ${path} is an alias of an operation not shown`);
      }
      const key = `${method} ${of}`;
      aliases.set(key, [...(aliases.get(key) ?? []), path]);
    }
  }
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation["x-alias-of"]) continue;
      const auth = (operation.security ?? [])
        .flatMap((requirement) => Object.keys(requirement))
        .map((scheme) => AUTH_NAMES[scheme] ?? scheme);
      const anonymousAllowed = (operation.security ?? []).some(
        (requirement) => Object.keys(requirement).length === 0,
      );
      const request = Object.entries(operation.requestBody?.content ?? {})[0];
      const entry: ReferenceOperation = {
        id: `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-").replace(/-+$/, ""),
        method: method.toUpperCase(),
        path,
        summary: operation.summary ?? "",
        auth: anonymousAllowed ? [...auth, "client_id and client_secret in the form"] : auth,
        parameters: (operation.parameters ?? []).map((parameter) => ({
          name: parameter.name,
          in: parameter.in,
          type: typeLabel(parameter.schema),
          required: Boolean(parameter.required),
          description: [parameter.description, describe(parameter.schema)]
            .filter(Boolean)
            .join(". "),
        })),
        request: request ? body(request[0], request[1]) : null,
        responses: Object.entries(operation.responses)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([status, response]) => {
            const media = Object.entries(response.content ?? {})[0];
            return {
              status,
              description: response.description,
              body: media ? body(media[0], media[1]) : null,
            };
          }),
        aliases: aliases.get(`${method} ${path}`) ?? [],
      };
      const index = GROUPS.findIndex((group) => group.matches(path));
      groups[index]?.operations.push(entry);
    }
  }
  return groups.filter((group) => group.operations.length > 0);
}

/** An example as it goes on the wire: JSON pretty-printed, a form urlencoded, bytes as said. */
function exampleText(mediaType: string, example: unknown): string | null {
  if (example === undefined) return null;
  if (mediaType === "application/x-www-form-urlencoded" && example && typeof example === "object") {
    return new URLSearchParams(example as Record<string, string>).toString().replaceAll("&", "\n&");
  }
  if (typeof example === "string" && !mediaType.includes("json")) return example;
  return JSON.stringify(example, null, 2);
}
