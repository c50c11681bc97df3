// Standard Webhooks signing. The timestamp is the wall clock, not service time: receivers check it
// against their own clock, and a fast-forwarded service clock would make every signature stale.
import { Webhook } from "standardwebhooks";

export function signedHeaders(secret: string, eventId: string, body: string): Record<string, string> {
  const sentAt = new Date(Date.now());
  return {
    "content-type": "application/json",
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(eventId, sentAt, body),
  };
}
