// Each endpoint's window in one dispatcher: doubling with fast successes up to the per-endpoint bound,
// halving with slow ones, one at a time from the suspect share after a failure or a hang, and nothing
// changed by a cancelled attempt.
import { describe, expect, it } from "vitest";
import { allowance, closed, endpointOf, opened, type Endpoints, type WindowPolicy } from "../../src/dispatcher/endpoints.ts";

const policy: WindowPolicy = { endpointConcurrency: 256, slowMs: 5_000, suspectShare: 2 };
const fast = { succeeded: true, cancelled: false, latencyMs: 10 };
const slow = { succeeded: true, cancelled: false, latencyMs: 6_000 };
const failed = { succeeded: false, cancelled: false, latencyMs: 10 };
const cancelled = { succeeded: false, cancelled: true, latencyMs: 10 };

/** One attempt to `hookId`, ended with `verdict`. */
const attempt = (endpoints: Endpoints, hookId: string, verdict: typeof fast) => {
  opened(endpoints, hookId);
  closed(endpoints, hookId, verdict, policy);
};

describe("an endpoint's window", () => {
  it("doubles with each fast success from one up to the per-endpoint bound, and halves with a slow one", () => {
    const endpoints: Endpoints = new Map();
    const windows: number[] = [];
    for (let i = 0; i < 9; i++) {
      attempt(endpoints, "a", fast);
      windows.push(endpointOf(endpoints, "a").window);
    }
    expect(windows).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 256]);
    attempt(endpoints, "a", slow);
    expect(endpointOf(endpoints, "a")).toEqual({ inFlight: 0, window: 128, suspect: false });
  });

  it("falls to one and turns suspect on a failure; a cancelled attempt changes nothing", () => {
    const endpoints: Endpoints = new Map();
    for (let i = 0; i < 3; i++) attempt(endpoints, "a", fast);
    attempt(endpoints, "a", cancelled);
    expect(endpointOf(endpoints, "a")).toEqual({ inFlight: 0, window: 8, suspect: false });
    attempt(endpoints, "a", failed);
    expect(endpointOf(endpoints, "a")).toEqual({ inFlight: 0, window: 1, suspect: true });
    attempt(endpoints, "a", cancelled);
    expect(endpointOf(endpoints, "a").suspect).toBe(true);
    attempt(endpoints, "a", fast);
    expect(endpointOf(endpoints, "a")).toEqual({ inFlight: 0, window: 2, suspect: false });
  });
});

describe("the allowance a claim takes", () => {
  it("gives a healthy endpoint its free window, a suspect one a single slot while the suspect share lasts, and forgets one back at the default", () => {
    const endpoints: Endpoints = new Map();
    for (let i = 0; i < 3; i++) attempt(endpoints, "healthy", fast); // window 8
    for (let i = 0; i < 3; i++) opened(endpoints, "healthy");
    attempt(endpoints, "dead", failed);
    attempt(endpoints, "forgotten", slow); // back at a window of one, nothing in flight
    expect(allowance(endpoints, [], 0, policy)).toEqual({ hookIds: ["healthy", "dead"], allowed: [5, 1] });
    expect(endpoints.has("forgotten")).toBe(false);
    // The suspect share (2) in use: no suspect endpoint gets a slot, a healthy one keeps its own.
    attempt(endpoints, "other-dead", failed);
    opened(endpoints, "dead");
    opened(endpoints, "other-dead");
    expect(allowance(endpoints, [], 0, policy)).toEqual({ hookIds: ["healthy", "dead", "other-dead"], allowed: [5, 0, 0] });
  });

  it("marks an endpoint suspect when an attempt to it has been in flight longer than slowMs", () => {
    const endpoints: Endpoints = new Map();
    for (let i = 0; i < 2; i++) attempt(endpoints, "hanging", fast); // window 4
    opened(endpoints, "hanging");
    expect(allowance(endpoints, [{ hookId: "hanging", started: 1_000 }], 1_000 + policy.slowMs, policy).allowed).toEqual([3]);
    expect(allowance(endpoints, [{ hookId: "hanging", started: 1_000 }], 1_001 + policy.slowMs, policy).allowed).toEqual([0]);
    expect(endpointOf(endpoints, "hanging").suspect).toBe(true);
  });
});
