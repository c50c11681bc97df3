// A typed client of the Cardlink API: requests and answers typed from /v1/openapi.json (openapi-fetch
// over the generated src/openapi.ts), the webhook event types, and verifyWebhook over Standard Webhooks.
import createFetchClient from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, paths, webhooks } from "./openapi.ts";

export type { components, paths, webhooks };

export type Schemas = components["schemas"];
/** Every webhook body, told apart by `event`. */
export type WebhookEvent = Schemas["WebhookEvent"];
export type WebhookEventName = WebhookEvent["event"];
/** The body of one event, such as `EventOf<"transaction.auth.qualified">`. */
export type EventOf<E extends WebhookEventName> = Extract<WebhookEvent, { event: E }>;

export interface ClientOptions {
  /** Where the service runs, such as http://localhost:3000. */
  baseUrl: string;
  /** A secret key, sk_test_… or sk_live_…. */
  key: string;
  /** The service's name when it is not Cardlink (SERVICE_NAME): the key goes in `<name>-Key`. */
  serviceName?: string;
  fetch?: typeof globalThis.fetch;
}

/** A client of the management API whose paths, parameters, bodies and answers are typed. */
export function createCardlinkClient({ baseUrl, key, serviceName = "Cardlink", fetch }: ClientOptions) {
  return createFetchClient<paths>({ baseUrl, headers: { [`${serviceName}-Key`]: key }, ...(fetch ? { fetch } : {}) });
}

export type CardlinkClient = ReturnType<typeof createCardlinkClient>;

/** A client of the operator surface (/admin), with the ADMIN_TOKEN. */
export function createAdminClient({ baseUrl, adminToken, fetch }: { baseUrl: string; adminToken: string; fetch?: typeof globalThis.fetch }) {
  return createFetchClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${adminToken}` }, ...(fetch ? { fetch } : {}) });
}

/**
 * Verifies a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the hook's `whsec_` secret and returns the typed event. Throws when the
 * signature or the timestamp does not verify. Pass the raw body, exactly as received.
 */
export function verifyWebhook(secret: string, body: string, headers: Record<string, string | string[] | undefined>): WebhookEvent {
  const flat = Object.fromEntries(
    Object.entries(headers)
      .filter((e): e is [string, string | string[]] => e[1] !== undefined)
      .map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(", ") : v]),
  );
  return new Webhook(secret).verify(body, flat) as WebhookEvent;
}
