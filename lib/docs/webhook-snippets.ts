/**
 * The code the events page shows (/docs/events), the same text as
 * docs/events.md#verifying-a-signature; test/events-docs.test.ts runs each
 * snippet against deliveries signed as the service signs them, and checks
 * that docs/events.md shows the same text.
 */

export const WEBHOOK_PAYLOAD_EXAMPLE = `{
  "type": "connection.expiring",
  "timestamp": "2026-11-27T14:00:00.000Z",
  "data": {
    "client_id": "obc_3kq8Xw2mVb",
    "user": "the user of the token response",
    "connection_id": "8f0c2d4e-5b7a-4c1e-9d3f-2a6b8c0e1f47",
    "account_ids": ["0b5e7c9a-1d3f-4a6b-8c0e-2f4a6b8d0c1e"],
    "valid_until": "2026-12-04T09:12:00.000Z"
  }
}
`;

export const VERIFY_NODE = `import { Webhook } from "standardwebhooks";

const webhook = new Webhook(process.env.WEBHOOK_SECRET!); // "whsec_…"

// In your handler, with the raw body as a string (Express: express.text({ type: "application/json" })).
export function verifiedEvent(body: string, headers: Record<string, string>) {
  // Throws when the signature does not match or the timestamp is too old.
  return webhook.verify(body, {
    "webhook-id": headers["webhook-id"],
    "webhook-timestamp": headers["webhook-timestamp"],
    "webhook-signature": headers["webhook-signature"],
  }) as { type: string; timestamp: string; data: Record<string, unknown> };
}
`;

export const VERIFY_PYTHON = `import base64, hashlib, hmac, json, time

def verified_event(secret: str, body: bytes, headers) -> dict:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    msg_id = headers["webhook-id"]
    timestamp = headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > 5 * 60:
        raise ValueError("timestamp too far from now")
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for entry in headers["webhook-signature"].split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return json.loads(body)
    raise ValueError("no valid signature")
`;

export const VERIFY_PYTHON_LIBRARY = `from standardwebhooks import Webhook

webhook = Webhook(secret)  # "whsec_…"
event = webhook.verify(body, headers)  # raises when the signature or the timestamp is wrong
`;
