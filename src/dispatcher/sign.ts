// Standard Webhooks signing (https://www.standardwebhooks.com): `v1,` and the base64 HMAC-SHA256 of
// `<id>.<timestamp>.<body>` under the secret's bytes (base64 after `whsec_`). Node's own HMAC: the
// standardwebhooks package signs in JavaScript, several times slower per delivery. The timestamp is the
// wall clock, not service time: receivers check it against their own clock, and a fast-forwarded service
// clock would make every signature stale.
import { createHmac } from "node:crypto";

// A secret's bytes are decoded once; keep them per secret rather than per delivery.
const keys = new Map<string, Buffer>();
const MAX_KEYS = 10_000;

function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(secret, (key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64")));
  }
  return key;
}

function sign(secret: string, eventId: string, timestampSeconds: number, body: string): string {
  return "v1," + createHmac("sha256", keyOf(secret)).update(`${eventId}.${timestampSeconds}.${body}`).digest("base64");
}

export function signedHeaders(secret: string, eventId: string, body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": sign(secret, eventId, timestamp, body),
  };
}
