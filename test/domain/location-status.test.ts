import { describe, expect, it } from "vitest";
import {
  NETWORK_STATUSES,
  addressFindable,
  answerKind,
  initialNetworkStatus,
  networkTransition,
  onboardingDelayMs,
  type NetworkEvent,
  type NetworkStatus,
} from "../../src/domain/location-status.ts";

describe("initial network status of a location", () => {
  it("is Active in test and Idle in live (a sync asked for at creation then takes it: Idle -> Syncing)", () => {
    expect(initialNetworkStatus(false)).toBe("Active");
    expect(initialNetworkStatus(true)).toBe("Idle");
    expect(networkTransition(initialNetworkStatus(true), "sync-started")).toEqual({ ok: true, status: "Syncing" });
  });
});

describe("location status per scheme: every transition and every refused one", () => {
  const EVENTS: NetworkEvent[] = ["sync-started", "network-confirmed", "network-issue"];
  // The spec's state table; every other (status, event) pair is refused.
  const ALLOWED: [NetworkStatus, NetworkEvent, NetworkStatus][] = [
    ["Idle", "sync-started", "Syncing"],
    ["Syncing", "network-confirmed", "Active"],
    ["Syncing", "network-issue", "Not found"],
  ];
  const cases = NETWORK_STATUSES.flatMap((from) =>
    EVENTS.map((event) => ({ from, event, to: ALLOWED.find(([f, e]) => f === from && e === event)?.[2] ?? null })),
  );

  it.each(cases)("$from + $event -> $to", ({ from, event, to }) => {
    const next = networkTransition(from, event);
    if (to) expect(next).toEqual({ ok: true, status: to });
    else expect(next).toMatchObject({ ok: false, reason: expect.stringContaining(from) });
  });

  it("reports Active as location.active and Not found as location.failed", () => {
    expect(answerKind("Active")).toBe("location.active");
    expect(answerKind("Not found")).toBe("location.failed");
  });
});

describe("how long a network takes to answer an onboarding request", () => {
  const DAY = 86_400_000;
  it("takes 1 to 2 weeks when it searches by address", () => {
    expect(onboardingDelayMs(false, 0)).toBe(7 * DAY);
    expect(onboardingDelayMs(false, 0.999999)).toBeLessThan(14 * DAY);
    expect(onboardingDelayMs(false, 0.5)).toBe(10.5 * DAY);
  });

  it("takes exactly one week, the shortest sync, with client-supplied MIDs", () => {
    for (const draw of [0, 0.5, 0.99]) expect(onboardingDelayMs(true, draw)).toBe(7 * DAY);
  });

  it("cannot find an address without a street or unit number", () => {
    expect(addressFindable("1 High Street")).toBe(true);
    expect(addressFindable("Unit 4, Market Hall")).toBe(true);
    expect(addressFindable("High Street")).toBe(false);
  });
});
