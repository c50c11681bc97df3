// Standard Webhooks signing. The timestamp is the wall clock, not service time: receivers check it
// against their own clock, and a fast-forwarded service clock would make every signature stale.
import { Webhook } from "standardwebhooks";

// A Webhook decodes its secret once; keep one per secret rather than one per delivery.
const signers = new Map<string, Webhook>();
const MAX_SIGNERS = 10_000;

function signer(secret: string): Webhook {
  let w = signers.get(secret);
  if (!w) {
    if (signers.size >= MAX_SIGNERS) signers.clear();
    signers.set(secret, (w = new Webhook(secret)));
  }
  return w;
}

export function signedHeaders(secret: string, eventId: string, body: string): Record<string, string> {
  const sentAt = new Date(Date.now());
  return {
    "content-type": "application/json",
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
    "webhook-signature": signer(secret).sign(eventId, sentAt, body),
  };
}
