// The front door's admission gate on a clock of the test's own: fair turns, refusals only past an account's
// own waiting bound, and backpressure that cuts the heaviest account first while nothing waiting is lost.
import { describe, expect, it } from "vitest";
import { createAdmission, type Finish, type StreamBacklog } from "../../src/api/admission.ts";
import { ApiError } from "../../src/api/errors.ts";
import type { AdmissionOutcome } from "../../src/platform/metrics/index.ts";

const settings = {
  ADMISSION_MAX_IN_FLIGHT: 4,
  ADMISSION_MIN_IN_FLIGHT: 1,
  ADMISSION_LATENCY_TOLERANCE: 1.2,
  ADMISSION_QUEUE_PER_ACCOUNT: 100,
  ADMISSION_QUALIFIER_LAG_BOUND: 100,
  ADMISSION_OUTBOX_BACKLOG_BOUND: 100,
};

/** Lets settled promises' callbacks run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

/** A request at the gate: whether it has started, and its finish once it has. */
function ask(gate: ReturnType<typeof createAdmission>, tenant: string) {
  const request: { started: boolean; finish?: Finish; refused?: unknown } = { started: false };
  gate.enter(tenant).then(
    (finish) => Object.assign(request, { started: true, finish }),
    (err: unknown) => (request.refused = err),
  );
  return request;
}

function gateOnClock(overrides: Partial<typeof settings> = {}, readBacklog?: () => Promise<StreamBacklog>) {
  const clock = { ms: 0 };
  const decisions: [string, AdmissionOutcome][] = [];
  const gate = createAdmission({
    settings: { ...settings, ...overrides },
    ...(readBacklog ? { readBacklog } : {}),
    metrics: { decided: (account, outcome) => decisions.push([account, outcome]), waited: () => undefined, state: () => undefined },
    now: () => clock.ms,
  });
  return { gate, clock, decisions };
}

describe("admission", () => {
  it("starts an account under its share at once while another's wait, and hands freed places to the lighter first", async () => {
    const { gate, decisions } = gateOnClock();
    const heavy = Array.from({ length: 7 }, () => ask(gate, "heavy"));
    const light = ask(gate, "light");
    await flush();
    expect(heavy.filter((r) => r.started)).toHaveLength(4);
    expect(light.started).toBe(true);
    const other = [ask(gate, "other"), ask(gate, "other")];
    await flush();
    expect(other.map((r) => r.started)).toEqual([true, false]);
    expect(gate.state().accounts.get("heavy")).toMatchObject({ inFlight: 4, waiting: 3 });

    // A place frees: the account with less in flight than its share takes it, not the one that queued first.
    heavy[0]!.finish!(true);
    await flush();
    expect(other[1]!.started).toBe(true);
    expect(heavy.filter((r) => r.started)).toHaveLength(4);
    expect(decisions.filter(([account]) => account === "light")).toEqual([["light", "admitted"]]);
    expect(decisions.filter(([account, outcome]) => account === "heavy" && outcome === "queued")).toHaveLength(3);
  });

  it("refuses (429, Retry-After) only an account whose own waiting requests are at the bound", async () => {
    const { gate, decisions } = gateOnClock({ ADMISSION_QUEUE_PER_ACCOUNT: 2 });
    const heavy = Array.from({ length: 6 }, () => ask(gate, "heavy"));
    const refused = ask(gate, "heavy");
    const light = ask(gate, "light");
    await flush();
    expect(heavy.filter((r) => r.started)).toHaveLength(4);
    expect(refused.refused).toBeInstanceOf(ApiError);
    expect(refused.refused).toMatchObject({ code: "rate_limit_exceeded", headers: { "Retry-After": "1" } });
    expect((refused.refused as ApiError).message).toBe(
      "Too many test purchases waiting for this account (2 wait behind its 4 in flight, its fair share of a busy service); retry after 1s.",
    );
    expect(light.started).toBe(true);
    expect(decisions.filter(([, outcome]) => outcome === "refused")).toEqual([["heavy", "refused"]]);
  });

  it("slows the heaviest account while the stream is past its bound, keeps the light one's turn, and loses nothing waiting", async () => {
    const backlog: StreamBacklog = { qualifierLag: 0, outboxBacklog: 0 };
    const { gate, clock } = gateOnClock({ ADMISSION_MAX_IN_FLIGHT: 8, ADMISSION_MIN_IN_FLIGHT: 2 }, async () => ({ ...backlog }));
    const heavy = Array.from({ length: 12 }, () => ask(gate, "heavy"));
    await flush();
    expect(heavy.filter((r) => r.started)).toHaveLength(8);

    backlog.qualifierLag = 1_000;
    // The gate reads the backlog as requests come (at most once a second), then cuts at its next look.
    for (let i = 0; i < 3; i++) {
      clock.ms += 1_000;
      const light = ask(gate, "light");
      await flush();
      expect(light.started).toBe(true);
      light.finish!(true);
      await flush();
    }
    expect(gate.state().capacity).toBeLessThan(8);
    const ended = new Set<object>();
    const end = (r: (typeof heavy)[number]) => (ended.add(r), r.finish!(true));
    const running = () => heavy.filter((r) => r.started && !ended.has(r));
    // Heavy requests end; while the stream is backlogged the ones waiting do not take their places.
    end(running()[0]!);
    end(running()[0]!);
    await flush();
    expect(heavy.filter((r) => r.started)).toHaveLength(8);
    expect(gate.state().accounts.get("heavy")).toMatchObject({ inFlight: 6, waiting: 4 });

    // The backlog drains: the capacity grows back and every waiting request starts.
    backlog.qualifierLag = 0;
    for (let i = 0; i < 20 && heavy.some((r) => !r.started); i++) {
      clock.ms += 1_000;
      const next = running()[0];
      if (next) end(next);
      await flush();
    }
    expect(heavy.every((r) => r.started)).toBe(true);
  });

  it("cuts the heavy account's places while contending accounts' latency grows past tolerance × its baseline", async () => {
    const { gate, clock, decisions } = gateOnClock({ ADMISSION_MAX_IN_FLIGHT: 16, ADMISSION_MIN_IN_FLIGHT: 2 });
    // The light account alone: answers in 20 ms make the baseline.
    for (let i = 0; i < 30; i++) {
      const light = ask(gate, "light");
      await flush();
      clock.ms += 20;
      light.finish!(true);
      clock.ms += 30;
    }
    // The heavy account's sixteen loops: each answer takes longer the more are in flight.
    const loops = Array.from({ length: 16 }, () => ({ request: ask(gate, "heavy"), since: clock.ms }));
    await flush();
    for (let step = 0; step < 60; step++) {
      clock.ms += 25;
      const started = loops.filter((l) => l.request.started);
      const oldest = started.sort((a, b) => a.since - b.since)[0];
      if (oldest) {
        oldest.request.finish!(true);
        Object.assign(oldest, { request: ask(gate, "heavy"), since: clock.ms });
      }
      if (step % 4 === 0) {
        const light = ask(gate, "light");
        await flush();
        clock.ms += 1;
        light.finish!(true);
      }
      await flush();
    }
    expect(gate.state().capacity).toBeLessThan(16);
    expect(gate.state().accounts.get("heavy")!.inFlight).toBeLessThan(16);
    // The light account was never made to wait.
    expect(decisions.filter(([account]) => account === "light").every(([, outcome]) => outcome === "admitted")).toBe(true);
  });
});
