import { z } from "zod";
import * as examples from "../openapi-examples";
import { anyObject, bytes, json, noBody, pathId, type Operation } from "./shared";

/** Probes for orchestrators and load balancers (docs/operations.md), and partner logos. */

export const healthPaths = {
  "/healthz": {
    get: {
      summary: "Liveness and database reachability",
      description:
        "With Enable Banking, `warnings` lists setup problems of its application (bank_callback_not_registered, bank_application_inactive); they leave the answer 200.",
      responses: {
        "200": json(anyObject, examples.healthExample),
        "503": json(anyObject, examples.unhealthyExample, "The database is unreachable"),
      },
    },
  },
  "/livez": {
    get: {
      summary: "Liveness: the process answers",
      description:
        "Asks nothing of the database or the bank aggregator, so their outage does not restart the service. For an orchestrator's liveness probe and the container's health check.",
      responses: { "200": json(anyObject, examples.livezExample) },
    },
  },
  "/readyz": {
    get: {
      summary: "Readiness: database reachable, migrations applied, bank aggregator configured",
      description:
        "`checks` gives each check's `status` (ok, failed, skipped) and, when it is not ok, a `reason`. For an orchestrator's readiness probe and a load balancer's health check.",
      responses: {
        "200": json(anyObject, examples.readyExample),
        "503": json(anyObject, examples.notReadyExample, "A check failed"),
      },
    },
  },
  "/logos/{file}": {
    get: {
      summary: "A partner logo by content hash",
      requestParams: { path: z.object({ file: pathId("<sha256>.png|jpg|webp") }) },
      responses: {
        "200": {
          description: "The image",
          content: {
            "image/*": { schema: bytes("image/*"), example: examples.imageBytesExample },
          },
        },
        "304": noBody("Not modified"),
        "404": noBody("Unknown"),
      },
    },
  },
} satisfies Record<string, Record<string, Operation>>;
