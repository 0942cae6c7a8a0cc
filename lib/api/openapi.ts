import { z } from "zod";
import { createDocument, type CreateDocumentOptions } from "zod-openapi";
import { getEnv } from "../env";
import { dataPaths, ownDataPaths } from "./routes/data";
import { healthPaths } from "./routes/health";
import { oauthPaths } from "./routes/oauth";
import { partnerPaths } from "./routes/partners";
import { webhookEndpointPaths } from "./routes/webhook-endpoints";
import { openObjects } from "./routes/shared";
import { webhookEvents } from "./routes/webhooks";

/**
 * GET /openapi.json: OpenAPI 3.1 for every public endpoint, made by
 * zod-openapi from one description per route (./routes/*.ts). Every body is
 * a zod schema the handlers parse with or are typed by (lib/api/schemas.ts,
 * lib/oauth/schemas.ts, lib/partners/schemas.ts, …); those with an id become
 * components.
 */

/**
 * A JSON body's object reads the same as a request body as in an answer
 * (`additionalProperties: false`), except the open ones of ./routes/shared.ts:
 * without this, zod-openapi renders a second, `…Output` component for every
 * schema used both ways, differing only there.
 */
const sameInputAndOutput: CreateDocumentOptions["override"] = (ctx) => {
  const { zodSchema, jsonSchema, io } = ctx;
  if (openObjects.has(zodSchema)) {
    delete jsonSchema.additionalProperties;
  } else if (
    io === "input" &&
    zodSchema instanceof z.ZodObject &&
    zodSchema.def.catchall === undefined
  ) {
    jsonSchema.additionalProperties = false;
  }
};

/** The document as /openapi.json serves it: plain JSON, read by the reference page and the tests. */
export interface OpenApiDocument {
  [field: string]: unknown;
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

export function openApiDocument(): OpenApiDocument {
  const document = createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Bank Connect",
        version: "1.0.0",
        description:
          "Partner authorization (OAuth 2.0 code + PKCE) and end-to-end sealed bank data. See /docs.",
      },
      servers: [{ url: getEnv().issuer }],
      paths: {
        ...oauthPaths,
        ...dataPaths,
        ...ownDataPaths,
        ...partnerPaths,
        ...webhookEndpointPaths,
        ...healthPaths,
      },
      webhooks: webhookEvents,
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
          bearer: { type: "http", scheme: "bearer", description: "The same ebk_ key" },
          basic: {
            type: "http",
            scheme: "basic",
            description: "client_id:client_secret, percent-encoded",
          },
          ownerSession: {
            type: "apiKey",
            in: "cookie",
            name: "bc_session",
            description:
              "The owner's browser session; changes also need X-CSRF-Token from this origin",
          },
        },
      },
    },
    { override: sameInputAndOutput },
  );
  // createDocument's type leaves out what this call always makes: paths, webhooks and components.
  return document as unknown as OpenApiDocument;
}
