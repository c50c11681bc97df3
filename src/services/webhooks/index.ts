// Webhooks: hooks and their health, the deliveries and attempts of each event, the events' views. What the
// rest of Cardlink may use of it.
export { type AttemptOutcome, claimDue, type Delivery, type DueDelivery, fanOut, listDeliveries, listTransactionDeliveries, recordAttempts, recoverHook, redeliver, renewLeases } from "./deliveries.ts";
export { EVENT_STATUSES, type EventStatus, getWebhookEvent, listWebhookEvents, listWebhookEventsAbout, type WebhookEvent, type WebhookEventDetail } from "./events.ts";
export { createHook, deleteHook, type EndpointPolicy, getHook, getHookSecret, type Hook, HOOK_EVENTS, type HookEvent, type HookStatus, type HookWithSecret, isSigningSecret, listHooks, setHookEnabled } from "./hooks.ts";
export { allFannedOut, type DeliveryTry, eventIdsAbout, firstTries } from "./event-progress.ts";
