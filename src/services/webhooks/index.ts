// Webhooks: hooks and their health, the deliveries and attempts of each event, the events' views, how far an
// event has gone (event progress) and a program's overview. What the rest of Cardlink may use of it.
export { type AttemptOutcome, claimDue, type DueDelivery, fanOut, recordAttempts, recoverHook, redeliver, renewLeases } from "./deliveries.ts";
export { type Delivery, listDeliveries, listTransactionDeliveries } from "./delivery-list.ts";
export { EVENT_STATUSES, type EventStatus, getWebhookEvent, listWebhookEvents, listWebhookEventsAbout, type WebhookEvent, type WebhookEventDetail } from "./events.ts";
export { type Overview, OVERVIEW_MAX_DAYS, programOverview } from "./program-overview.ts";
export { createHook, deleteHook, type EndpointPolicy, getHook, getHookSecret, type Hook, HOOK_EVENTS, type HookEvent, type HookStatus, type HookWithSecret, isSigningSecret, listHooks, setHookEnabled } from "./hooks.ts";
export { allFannedOut, type DeliveryTry, eventIdsAbout, firstTries } from "./event-progress.ts";
