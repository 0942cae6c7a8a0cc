import { readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "../webhooks/types";
import { openApiDocument } from "./openapi";
import { WEBHOOK_EVENT_DOCS } from "./webhook-events";

/** The events in /openapi.json (OpenAPI 3.1 `webhooks`) and on the events page. */

type WebhookItem = {
  post: {
    parameters: { name: string; in: string }[];
    requestBody: {
      content: { "application/json": { schema: { $ref: string }; example: unknown } };
    };
    responses: Record<string, unknown>;
  };
};

describe("the events in the OpenAPI document", () => {
  const document = openApiDocument() as unknown as {
    webhooks: Record<string, WebhookItem>;
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  };

  it("has one webhook per event type, each with its payload schema and the signature headers", () => {
    expect(Object.keys(document.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const event of WEBHOOK_EVENT_DOCS) {
      const post = document.webhooks[event.type]?.post;
      const body = post?.requestBody.content["application/json"];
      expect(body?.schema.$ref).toBe(`#/components/schemas/${event.schemaId}`);
      const schema = document.components.schemas[event.schemaId];
      expect(Object.keys(schema?.properties ?? {})).toEqual(["type", "timestamp", "data"]);
      expect(post?.parameters.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual([
        "header:webhook-id",
        "header:webhook-timestamp",
        "header:webhook-signature",
      ]);
      expect(Object.keys(post?.responses ?? {})).toContain("2XX");
      // The example is a payload of its type, and of no other.
      expect(event.schema.parse(body?.example)).toEqual(body?.example);
      for (const other of WEBHOOK_EVENT_DOCS.filter((one) => one.type !== event.type)) {
        expect(other.schema.safeParse(body?.example).success).toBe(false);
      }
    }
  });

  it("stays a valid OpenAPI 3.1 document with them", async () => {
    const result = await new Validator().validate(openApiDocument());
    expect(result.errors ?? []).toEqual([]);
  });

  it("access.ended names why; connection events carry the connection, its accounts and, where it applies, the consent's end", () => {
    const fields = Object.fromEntries(
      WEBHOOK_EVENT_DOCS.map((event) => [event.type, event.fields]),
    );
    expect(fields).toEqual({
      "access.granted": [],
      "access.ended": ["reason"],
      "connection.history_ready": ["connection_id", "account_ids"],
      "connection.expiring": ["connection_id", "account_ids", "valid_until"],
      "connection.expired": ["connection_id", "account_ids", "valid_until"],
      "connection.withdrawn": ["connection_id", "account_ids"],
      "connection.renewed": ["connection_id", "account_ids", "valid_until"],
    });
  });

  it("the payload shown in docs/events.md is a valid connection.expiring event", () => {
    const doc = readFileSync(path.join(import.meta.dirname, "../../docs/events.md"), "utf8");
    const shown = /## Payload[\s\S]*?```json\n([\s\S]*?)\n```/.exec(doc)?.[1] ?? "";
    const expiring = WEBHOOK_EVENT_DOCS.find((event) => event.type === "connection.expiring");
    expect(expiring?.schema.safeParse(JSON.parse(shown)).success).toBe(true);
  });
});
