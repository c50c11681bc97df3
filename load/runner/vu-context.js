// The thread a script runs in, as k6's modules see it. In the runner's main thread that is the init
// context: the script is evaluated for its options and nothing is sent. In a VU's worker (vu.js) it is the
// VU: its scenario and group (tags of everything it measures), the samples it has measured and not yet
// handed over, and its line to the main thread, which makes its HTTP requests.
export const vu = {
  /** The scenario of the running iteration; undefined in setup() and teardown(), which have none. */
  scenario: undefined,
  /** The group path, "" at the top and "::name::inner" inside group() calls. */
  group: "",
  samples: [],
  /** Sends requests to the main thread and blocks until their responses come back; null in the init context. */
  exchange: null,
};

export const inInitContext = () => vu.exchange === null;

/** The tags every sample of the VU carries: its scenario, when it has one, and its group. */
export const vuTags = () => (vu.scenario === undefined ? { group: vu.group } : { scenario: vu.scenario, group: vu.group });

/** Records one sample of `metric` (its type and whether it is a time) with the VU's tags under `tags`. */
export function emit(metric, type, isTime, value, tags = {}) {
  if (inInitContext()) throw new Error(`${metric}: metrics are added by VU code, not in the init context`);
  vu.samples.push({ metric, type, isTime, value, tags: { ...vuTags(), ...tags } });
}

/** Blocks the thread for `seconds` (k6's sleep: the VU does nothing meanwhile). */
export function block(seconds) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, seconds * 1000));
}
