// The words and colours of status badges: every record status the pages show (an offer's, an event's, a
// delivery's, a hook's, a MID insight's, a missing transaction request's, a location's on a network, an
// activation's, an export's e-mail), each said once here, so no page shows a raw value such as `no_hooks`.
import type { OfferStatus } from "../domain/offer-status.ts";
import type { MidInsightStatus } from "../domain/mid-insights.ts";
import type { MissingRequestStatus } from "../domain/missing-transaction.ts";
import type { NetworkStatus } from "../domain/location-status.ts";
import type { ActivationState } from "../domain/qualification.ts";
import type { Delivery, EventStatus, HookStatus } from "../services/webhooks/index.ts";
import type { ExportMailStatus } from "../services/mid-insights/index.ts";
import { Badge } from "./layout.tsx";

/** A badge's colour, by its stylesheet class: done, under way, gone wrong, at rest. */
type Tone = "active" | "syncing" | "not-found" | "idle";
type Shown = readonly [label: string, tone: Tone];

const OFFER: Record<OfferStatus, Shown> = {
  requests: ["Requests", "idle"],
  upcoming: ["Upcoming", "syncing"],
  live: ["Live", "active"],
  expired: ["Expired", "not-found"],
};
const EVENT: Record<EventStatus, Shown> = {
  delivered: ["Delivered", "active"],
  pending: ["Pending", "syncing"],
  failed: ["Failed", "not-found"],
  no_hooks: ["No hooks", "idle"],
};
const DELIVERY: Record<Delivery["status"], Shown> = { pending: EVENT.pending, succeeded: ["Succeeded", "active"], failed: EVENT.failed };
const HOOK: Record<HookStatus, Shown> = { active: ["Active", "active"], failing: ["Failing", "syncing"], disabled: ["Disabled", "not-found"] };
const MID_INSIGHT: Record<MidInsightStatus, Shown> = { onboarded: ["Onboarded", "active"], offboarded: ["Offboarded", "idle"], sourced: ["Sourced", "idle"] };
const MISSING_REQUEST: Record<MissingRequestStatus, Shown> = {
  pending: EVENT.pending,
  processing: ["Processing", "syncing"],
  successful: ["Successful", "active"],
  failed: EVENT.failed,
};
const NETWORK: Record<NetworkStatus, Shown> = { Idle: ["Idle", "idle"], Syncing: ["Syncing", "syncing"], Active: ["Active", "active"], "Not found": ["Not found", "not-found"] };
const ACTIVATION: Record<ActivationState, Shown> = {
  "not activated": ["Not activated", "idle"],
  activated: ["Activated", "active"],
  deactivated: ["Deactivated", "idle"],
};
const MAIL: Record<ExportMailStatus, Shown> = { pending: EVENT.pending, retrying: ["Retrying", "syncing"], sent: ["Sent", "active"], failed: EVENT.failed };

/** The same value means the same thing wherever it appears (pending and failed are alike for events, deliveries and requests). */
const STATUSES: Readonly<Record<string, Shown>> = { ...OFFER, ...EVENT, ...DELIVERY, ...HOOK, ...MID_INSIGHT, ...MISSING_REQUEST, ...NETWORK, ...ACTIVATION, ...MAIL };

/** A status as a reader says it; a value this list does not know yet is still shown as words (`no_hooks` as "No hooks"). */
export function statusLabel(value: string): string {
  const known = STATUSES[value];
  if (known) return known[0];
  const words = value.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Options of a status filter: the API's value, the reader's word. */
export const statusOptions = (values: readonly string[]) => values.map((v) => [v, statusLabel(v)] as const);

export const StatusBadge = ({ status }: { status: string }) => <Badge text={statusLabel(status)} tone={STATUSES[status]?.[1] ?? "idle"} />;
