// A location's sync with each scheme: the spec's "Location status per scheme" state table as data,
// where a location starts, and how long a network takes to answer an onboarding request.
import { DAY_MS, SECOND_MS } from "./time-units.ts";

export const NETWORK_STATUSES = ["Idle", "Syncing", "Active", "Not found"] as const;
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

/**
 * Where a location starts on each scheme: Idle in live (created with `status: syncing`, it is taken
 * by a sync at once — `sync-started`, Idle -> Syncing — in the same transaction), Active in test: the
 * test environment has no networks to wait for.
 */
export function initialNetworkStatus(live: boolean): NetworkStatus {
  return live ? "Idle" : "Active";
}

/** What can happen to a location on one scheme once it exists. */
export type NetworkEvent = "sync-started" | "network-confirmed" | "network-issue";

const TRANSITIONS: Record<NetworkStatus, Partial<Record<NetworkEvent, NetworkStatus>>> = {
  Idle: { "sync-started": "Syncing" },
  Syncing: { "network-confirmed": "Active", "network-issue": "Not found" },
  Active: {},
  "Not found": {},
};

/** The next status, or why the event does not apply in this status. */
export function networkTransition(from: NetworkStatus, event: NetworkEvent): { ok: true; status: NetworkStatus } | { ok: false; reason: string } {
  const to = TRANSITIONS[from][event];
  return to ? { ok: true, status: to } : { ok: false, reason: `a location that is ${from} on a scheme cannot take ${event}` };
}

/** The webhook kind of a network's answer (the location.status event's `status`). */
export const answerKind = (status: NetworkStatus): "location.active" | "location.failed" =>
  status === "Active" ? "location.active" : "location.failed";

/**
 * How long a network takes to answer an onboarding request, in service time: 1 to 2 weeks (the spec's
 * sync duration) while it searches by brand name and address; exactly one week — the shortest sync —
 * when the client supplied MIDs at creation, since the network only confirms them. `draw` is in [0, 1).
 */
export function onboardingDelayMs(clientMids: boolean, draw: number): number {
  if (clientMids) return 7 * DAY_MS;
  return 7 * DAY_MS + Math.floor(draw * 7 * (DAY_MS / SECOND_MS)) * SECOND_MS;
}

/**
 * Whether a network can find the merchant by its address: one with no house or unit number anywhere in
 * it ("High Street") matches no registered merchant, so it ends Not found with a case — the
 * deterministic small share of failures beside the onboarding-failure fault.
 */
export const addressFindable = (address: string): boolean => /\d/.test(address);
