// The scenarios of a script's options and the executors that run them: constant-arrival-rate,
// constant-vus and per-vu-iterations, with k6's defaults, graceful stop and dropped iterations.
import { durationMs, formatDuration } from "./durations.js";

export class OptionsError extends Error {}

const EXECUTORS = {
  "constant-arrival-rate": {
    keys: { rate: undefined, timeUnit: "1s", duration: undefined, preAllocatedVUs: undefined, maxVUs: undefined, gracefulStop: "30s" },
    vus: (s) => s.preAllocatedVUs,
    maxVUs: (s) => s.maxVUs ?? s.preAllocatedVUs,
    describe: (s) =>
      `${s.rate.toFixed(2)} iterations/${s.timeUnit === "1s" ? "s" : s.timeUnit} for ${formatDuration(durationMs(s.duration))} ` +
      `(maxVUs: ${s.preAllocatedVUs}-${s.maxVUs ?? s.preAllocatedVUs}, gracefulStop: ${formatDuration(durationMs(s.gracefulStop))})`,
    run: constantArrivalRate,
  },
  "constant-vus": {
    keys: { vus: 1, duration: undefined, gracefulStop: "30s" },
    vus: (s) => s.vus,
    maxVUs: (s) => s.vus,
    describe: (s) => `${s.vus} looping VUs for ${formatDuration(durationMs(s.duration))} (gracefulStop: ${formatDuration(durationMs(s.gracefulStop))})`,
    run: constantVUs,
  },
  "per-vu-iterations": {
    keys: { vus: 1, iterations: 1, maxDuration: "10m", gracefulStop: "30s" },
    vus: (s) => s.vus,
    maxVUs: (s) => s.vus,
    describe: (s) =>
      `${s.iterations} iterations for each of ${s.vus} VUs (maxDuration: ${formatDuration(durationMs(s.maxDuration))}, ` +
      `gracefulStop: ${formatDuration(durationMs(s.gracefulStop))})`,
    run: perVUIterations,
  },
};

const TOP_LEVEL = new Set(["scenarios", "thresholds", "setupTimeout", "teardownTimeout", "summaryTrendStats"]);
const REQUIRED = new Set(["rate", "duration", "preAllocatedVUs"]);

/** The scenarios of `options` with their defaults filled in; one VU doing one iteration when there are none, as in k6. */
export function scenariosOf(options = {}) {
  for (const key of Object.keys(options)) {
    if (!TOP_LEVEL.has(key)) throw new OptionsError(`option ${key}: not supported by load/runner (it reads ${[...TOP_LEVEL].join(", ")})`);
  }
  const given = options.scenarios ?? { default: { executor: "per-vu-iterations" } };
  return Object.entries(given).map(([name, s]) => {
    const executor = EXECUTORS[s.executor];
    if (!executor) throw new OptionsError(`scenario ${name}: executor ${s.executor} is not supported by load/runner (it runs ${Object.keys(EXECUTORS).join(", ")})`);
    const scenario = { name, executor: s.executor };
    for (const key of Object.keys(s)) {
      if (key !== "executor" && !(key in executor.keys)) throw new OptionsError(`scenario ${name}: ${key} is not supported by load/runner for ${s.executor}`);
    }
    for (const [key, fallback] of Object.entries(executor.keys)) {
      const value = s[key] ?? fallback;
      if (value === undefined && REQUIRED.has(key)) throw new OptionsError(`scenario ${name}: ${key} is required by ${s.executor}`);
      if (value !== undefined) scenario[key] = value;
    }
    return { ...scenario, vus: executor.vus(scenario), maxVUs: executor.maxVUs(scenario), description: executor.describe(scenario), run: executor.run };
  });
}

/** The longest a scenario may run: its duration (or maxDuration) and its graceful stop. */
export const maxDurationMs = (s) => durationMs(s.duration ?? s.maxDuration) + durationMs(s.gracefulStop);

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Waits for `running` until `deadline` (performance.now() time), then stops the VUs still in an iteration,
 * which interrupts it, and waits for the loops to see that.
 */
async function drain(running, vus, deadline) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))));
  await Promise.race([Promise.all(running), late]);
  clearTimeout(timer);
  await Promise.all(vus.filter((vu) => vu.busy).map((vu) => vu.stop()));
  await Promise.all(running);
}

/**
 * `rate` iterations every `timeUnit`, each on an idle VU. With none idle the iteration is dropped
 * (dropped_iterations) and, below maxVUs, one more VU is started for the next ones.
 */
async function constantArrivalRate(s, ctx) {
  const idle = [...ctx.vus];
  const every = durationMs(s.timeUnit) / s.rate;
  const start = performance.now();
  const end = start + durationMs(s.duration);
  const running = new Set();
  let growing = false;
  let warned = false;
  for (let n = 0; start + n * every < end; n++) {
    await delay(start + n * every - performance.now());
    const vu = idle.pop();
    if (vu) {
      const iteration = ctx.iterate(vu).then(() => {
        running.delete(iteration);
        idle.push(vu);
      });
      running.add(iteration);
      continue;
    }
    ctx.results.add({ metric: "dropped_iterations", type: "counter", isTime: false, value: 1, tags: { scenario: s.name } });
    if (ctx.vus.length < s.maxVUs && !growing) {
      growing = true;
      ctx.grow().then(
        (grown) => {
          idle.push(grown);
          growing = false;
        },
        (e) => ctx.log(`ERRO ${e.message}`),
      );
    } else if (ctx.vus.length >= s.maxVUs && !warned) {
      warned = true;
      ctx.log(`WARN Insufficient VUs, reached ${s.maxVUs} active VUs and cannot initialize more  executor=${s.executor} scenario=${s.name}`);
    }
  }
  await drain([...running], ctx.vus, end + durationMs(s.gracefulStop));
}

/** Every VU loops iterations until the duration is over. */
async function constantVUs(s, ctx) {
  const end = performance.now() + durationMs(s.duration);
  const loops = ctx.vus.map(async (vu) => {
    while (performance.now() < end) if ((await ctx.iterate(vu)).interrupted) return;
  });
  await drain(loops, ctx.vus, end + durationMs(s.gracefulStop));
}

/** Every VU runs `iterations` iterations, within maxDuration. */
async function perVUIterations(s, ctx) {
  const end = performance.now() + durationMs(s.maxDuration);
  const loops = ctx.vus.map(async (vu) => {
    for (let i = 0; i < s.iterations && performance.now() < end; i++) if ((await ctx.iterate(vu)).interrupted) return;
  });
  await drain(loops, ctx.vus, end + durationMs(s.gracefulStop));
}
