import { z } from "zod";
import type {
  ZodOpenApiOperationObject,
  ZodOpenApiRequestBodyObject,
  ZodOpenApiResponseObject,
} from "zod-openapi";
import { bodyLimitFor, bodyTooLargeAnswer } from "../../http/body-limits";
import { ErrorBody, SyncProblem } from "../schemas";

/**
 * The pieces every route description of /openapi.json is built from: JSON
 * answers with their examples (each checked against its schema by the unit
 * tests), the error bodies, parameters and the security requirements.
 */

/**
 * Objects rendered without `additionalProperties`: form bodies (unknown
 * parameters are ignored) and the bodies described here rather than by a
 * handler's schema. Every other object is closed, as a body and as an answer
 * (../openapi.ts).
 */
export const openObjects = new WeakSet<object>();

/** An object in the document without `additionalProperties`. */
export const openObject = <Shape extends z.ZodRawShape>(shape: Shape) => {
  const schema = z.object(shape);
  openObjects.add(schema);
  return schema;
};

export type Operation = ZodOpenApiOperationObject;
export type Response = ZodOpenApiResponseObject;

/** A JSON answer with its example. */
export const json = (schema: z.ZodType, example: unknown, description = "OK"): Response => ({
  description,
  content: { "application/json": { schema, example } },
});

/** An RFC 6749 error body; `code` is its `error`. */
export const error = (description: string, code: string, errorDescription?: string) =>
  json(
    ErrorBody,
    errorDescription === undefined
      ? { error: code }
      : { error: code, error_description: errorDescription },
    description,
  );

/** A sync refusal: `{status, reason}`. */
export const problem = (description: string, status: number, reason: string) =>
  json(SyncProblem, { status, reason }, description);

export const noBody = (description: string): Response => ({ description });

/** An error body that also carries `reason` (and `status`) for the SDKs' sync calls. */
export const errorWithReason = (withStatus: boolean) =>
  openObject({
    error: z.string(),
    error_description: z.string().optional(),
    ...(withStatus ? { status: z.number().int() } : {}),
    reason: z.string(),
  });

/** Refused before any handler runs (docs/request-bodies.md). */
export const tooLarge = json(
  errorWithReason(true),
  JSON.parse(bodyTooLargeAnswer("/api/sync", bodyLimitFor("/api/sync")).body),
  "invalid_request: the body is over the path's limit",
);

/** What every operation with an API key may answer before its handler runs. */
export const keyRefusals = {
  "401": error(
    "Missing, revoked or expired API key",
    "invalid_token",
    "the API key is invalid, revoked or expired",
  ),
  "403": json(
    errorWithReason(false),
    {
      error: "access_denied",
      error_description:
        "this partner is suspended; its API keys cannot read data until it is resumed",
      reason: "partner_suspended",
    },
    "access_denied, reason partner_suspended: the partner is suspended",
  ),
  "429": noBody("Rate limited (no body; Retry-After)"),
};

type Security = Record<string, string[]>[];
export const apiKey: Security = [{ apiKey: [] }, { bearer: [] }];
export const ownerSession: Security = [{ ownerSession: [] }];
export const clientAuth: Security = [{ basic: [] }, {}];

/** A query, path or header parameter: its schema with the parameter's description. */
export const param = <T extends z.ZodType>(schema: T, description: string) =>
  schema.meta({ param: { description } });

/** A path segment, e.g. `{id}`. */
export const pathId = (description: string) => param(z.string(), description);

/** A required form-encoded body. */
export const form = (schema: z.ZodObject, example: object): ZodOpenApiRequestBodyObject => {
  openObjects.add(schema);
  return {
    required: true,
    content: { "application/x-www-form-urlencoded": { schema, example } },
  };
};

/** A required JSON body. */
export const jsonBody = (schema: z.ZodType, example: unknown): ZodOpenApiRequestBodyObject => ({
  required: true,
  content: { "application/json": { schema, example } },
});

/** RFC 8288: the next page's address, when there is one. */
export const linkHeader = z.object({
  Link: z
    .string()
    .optional()
    .meta({ header: { description: 'The next page: <…?limit=…&cursor=…>; rel="next"' } }),
});

/** A JSON object whose fields are described by its example only. */
export const anyObject = z.looseObject({}).meta({
  override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    delete jsonSchema.properties;
    delete jsonSchema.additionalProperties;
  },
});

/** Bytes of the given media type. */
export const bytes = (mediaType: string) => z.string().meta({ contentMediaType: mediaType });
