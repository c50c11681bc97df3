// k6's `k6` module: check, group, sleep and fail, as k6 gives them to a VU.
import { block, emit, vu } from "../vu-context.js";

/** Runs each named check on `value`; each one is a `checks` sample (1 passed, 0 failed). True when all passed. */
export function check(value, checks, tags = {}) {
  let all = true;
  for (const [name, test] of Object.entries(checks)) {
    const passed = Boolean(typeof test === "function" ? test(value) : test);
    emit("checks", "rate", false, passed ? 1 : 0, { ...tags, check: name });
    all &&= passed;
  }
  return all;
}

/** Runs `fn` with its samples tagged `group: <outer>::<name>`, and measures it as `group_duration`. */
export function group(name, fn) {
  const outer = vu.group;
  vu.group = `${outer}::${name}`;
  const started = performance.now();
  try {
    return fn();
  } finally {
    emit("group_duration", "trend", true, performance.now() - started);
    vu.group = outer;
  }
}

export function sleep(seconds) {
  block(seconds);
}

/** Ends the iteration with `message`, as an uncaught error would. */
export function fail(message = "") {
  throw new Error(message);
}
