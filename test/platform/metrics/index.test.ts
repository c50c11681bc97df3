// A process's metrics: which hop a consumed topic's batches time, the bus's per-group figures, and the hop
// figures the bench reads from one or more processes' /metrics texts, and the admission's per-account series.
import { describe, expect, it } from "vitest";
import type { BusMessage } from "../../../src/platform/bus/bus.ts";
import { createMetrics, hopFigures } from "../../../src/platform/metrics/index.ts";
import { sample } from "../../support/metrics.ts";

const published = (agoMs: number, n = 1, value: unknown = {}): BusMessage[] =>
  Array.from({ length: n }, (_, i) => ({ topic: "t", partition: 0, offset: i, key: "k", value, timestamp: Date.now() - agoMs }));

describe("a process's metrics", () => {
  it("times the qualifier hop on the schemes' transaction topics and the simulator hop on its own scheme's commands, nothing else", async () => {
    const metrics = createMetrics();
    metrics.consumers.committed({ groupId: "qualifier", topic: "visa.transactions", partition: 2, messages: published(30, 3), handledMs: 12, lag: 5 });
    metrics.consumers.committed({ groupId: "simulator-amex", topic: "simulator.commands.amex", partition: 0, messages: published(300, 1, { scheme: "amex" }), handledMs: 4, lag: 0 });
    // Another group reading the commands (a test's reader, say) does not end the purchase's hop.
    metrics.consumers.committed({ groupId: "command-reader", topic: "simulator.commands.amex", partition: 0, messages: published(1, 1, { scheme: "amex" }), handledMs: 1, lag: 0 });
    metrics.consumers.committed({ groupId: "lifecycle", topic: "network.onboarding.replies", partition: 1, messages: published(3_000), handledMs: 1, lag: 0 });
    metrics.consumers.handing!("qualifier", 7);
    const text = (await metrics.expose()).body;
    const hops = hopFigures(text);
    expect(sample(text, "cardlink_bus_handler_batch_size_sum", { group: "qualifier" })).toBe(7);
    expect(Object.keys(hops).sort()).toEqual(["qualifier", "simulator"]);
    expect(hops.qualifier).toMatchObject({ count: 3, p50Ms: 50, p99Ms: 50 });
    expect(hops.simulator).toMatchObject({ count: 1, p50Ms: 500 });
    expect(sample(text, "cardlink_bus_batch_size_sum", { group: "qualifier", topic: "visa.transactions" })).toBe(3);
    expect(sample(text, "cardlink_bus_consumer_lag", { group: "qualifier", topic: "visa.transactions", partition: "2" })).toBe(5);
    expect(sample(text, "cardlink_bus_message_latency_seconds_count", { group: "lifecycle", topic: "network.onboarding.replies" })).toBe(1);
    expect(sample(text, "cardlink_bus_batch_duration_seconds_sum", { group: "qualifier", topic: "visa.transactions" })).toBeCloseTo(0.012);
  });

  it("sums the hops of several processes' texts, with quantiles at their buckets' upper bounds", async () => {
    const api = createMetrics();
    for (const seconds of [0.003, 0.004, 0.004, 0.004]) api.hop("api", seconds);
    const other = createMetrics();
    for (let i = 0; i < 95; i++) other.hop("api", 0.004);
    other.hop("api", 1.5);
    other.delivery("delivered", 0.07);
    other.delivery("retried");
    const figures = hopFigures((await api.expose()).body, (await other.expose()).body);
    expect(figures.api).toMatchObject({ count: 100, p50Ms: 5, p99Ms: 5 });
    expect(figures.api!.meanMs).toBeCloseTo((0.003 + 98 * 0.004 + 1.5) * 10, 5);
    expect(figures.dispatcher).toMatchObject({ count: 1, p50Ms: 100 });
    expect(hopFigures("")).toEqual({});
  });

  it("times the dispatcher's phases by phase, to tens of microseconds", async () => {
    const metrics = createMetrics();
    metrics.dispatchPhase("prepare", 0.00003);
    metrics.dispatchPhase("prepare", 0.00004);
    metrics.dispatchPhase("call", 0.25);
    const text = (await metrics.expose()).body;
    const name = "cardlink_webhook_dispatch_phase_duration_seconds";
    expect(sample(text, `${name}_bucket`, { phase: "prepare", le: "0.00005" })).toBe(2);
    expect(sample(text, `${name}_count`, { phase: "call" })).toBe(1);
    expect(sample(text, `${name}_bucket`, { phase: "call", le: "0.2" })).toBe(0);
    expect(sample(text, `${name}_count`, { phase: "record" })).toBe(0);
  });

  it("names at most METRICS_ACCOUNT_LABELS accounts in the admission's series and sums the rest as other", async () => {
    const metrics = createMetrics({ accountLabels: 2 });
    for (const account of ["a", "b", "c", "d", "a"]) metrics.admission.decided(account, "admitted");
    metrics.admission.decided("c", "refused");
    metrics.admission.state({
      capacity: 12,
      accounts: new Map([
        ["a", { inFlight: 5, waiting: 7, share: 6 }],
        ["c", { inFlight: 1, waiting: 0, share: 1 }],
        ["d", { inFlight: 2, waiting: 0, share: 2 }],
      ]),
      backlog: { qualifierLag: 40, outboxBacklog: 3 },
    });
    const text = (await metrics.expose()).body;
    expect(sample(text, "cardlink_admission_requests_total", { account: "a", outcome: "admitted" })).toBe(2);
    expect(sample(text, "cardlink_admission_requests_total", { account: "other", outcome: "admitted" })).toBe(2);
    expect(sample(text, "cardlink_admission_requests_total", { account: "other", outcome: "refused" })).toBe(1);
    expect(sample(text, "cardlink_admission_in_flight", { account: "other" })).toBe(3);
    expect(sample(text, "cardlink_admission_waiting", { account: "a" })).toBe(7);
    expect(sample(text, "cardlink_admission_share", { account: "a" })).toBe(6);
    expect(sample(text, "cardlink_admission_capacity", {})).toBe(12);
    expect(sample(text, "cardlink_admission_stream_backlog", { measure: "qualifier_lag" })).toBe(40);
    expect(new Set([...text.matchAll(/account="([^"]+)"/g)].map((m) => m[1]))).toEqual(new Set(["a", "b", "other"]));
  });
});
