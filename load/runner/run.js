// One run of a k6 script, in k6's order: the init context (options), the VUs, setup(), the scenarios side
// by side, teardown(), the summary and the thresholds' verdict as the exit code.
import { writeFileSync } from "node:fs";
import { register } from "node:module";
import { relative } from "node:path";
import { pathToFileURL } from "node:url";
import { durationMs, formatDuration } from "./durations.js";
import { declared } from "./k6/metrics.js";
import { Results } from "./results.js";
import { OptionsError, maxDurationMs, scenariosOf } from "./scenarios.js";
import { exportedSummary, summaryText } from "./summary.js";
import { ScriptError, VU } from "./vus.js";

/** k6's exit codes. */
const EXIT = { ok: 0, thresholds: 99, setupTimeout: 100, teardownTimeout: 101, invalidConfig: 104, scriptError: 107 };

register("./hooks.js", import.meta.url);

const DEFAULT_TREND_STATS = ["avg", "min", "med", "max", "p(90)", "p(95)"];

/** A promise of `call`, or `onTimeout` after `ms`. */
async function within(ms, call, onTimeout) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(onTimeout()), ms)));
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `scriptPath` with `env` as __ENV; writes the summary to `out`, errors and warnings to `err`, and the
 * summary as k6's --summary-export JSON to `summaryExport` when given. Resolves with the exit code.
 */
export async function run({ scriptPath, env, out, err, summaryExport }) {
  const started = performance.now();
  // k6's log lines: "ERRO[0061] message", the level and the seconds since the start.
  const log = (line) => {
    const seconds = String(Math.floor((performance.now() - started) / 1000)).padStart(4, "0");
    err.write(`${line.replace(/^(ERRO|WARN) /, (_, level) => `${level}[${seconds}] `)}\n`);
  };
  const scriptUrl = pathToFileURL(scriptPath).href;

  globalThis.__ENV = env;
  globalThis.__VU = 0;
  globalThis.__ITER = 0;
  let script;
  try {
    script = await import(scriptUrl);
  } catch (e) {
    log(`ERRO ${e.stack ?? e}`);
    return EXIT.scriptError;
  }
  let scenarios;
  let results;
  try {
    if (script.handleSummary) throw new OptionsError("handleSummary: not supported by load/runner; it prints k6's summary (and --summary-export)");
    scenarios = scenariosOf(script.options);
    results = new Results(script.options?.thresholds, declared);
    if (typeof script.default !== "function") throw new OptionsError("the script exports no default function for its scenarios to run");
  } catch (e) {
    log(`ERRO ${e.message}`);
    return EXIT.invalidConfig;
  }
  const options = script.options ?? {};
  const maxVUs = scenarios.reduce((n, s) => n + s.maxVUs, 0);
  const longest = Math.max(...scenarios.map(maxDurationMs));
  out.write(
    `\n  execution: local (load/runner: k6's API in Node)\n     script: ${relative(process.cwd(), scriptPath)}\n` +
      `  scenarios: ${scenarios.length} scenario${scenarios.length === 1 ? "" : "s"}, ${maxVUs} max VUs, ${formatDuration(longest)} max duration (incl. graceful stop):\n` +
      scenarios.map((s) => `           * ${s.name}: ${s.description}\n`).join("") +
      "\n",
  );

  const all = [];
  let nextId = 1;
  const startVU = async (id = nextId++) => {
    const vu = new VU(id, { scriptUrl, env, results });
    all.push(vu);
    return vu.ready;
  };
  const stopAll = () => Promise.all(all.map((vu) => vu.stop()));
  let code = EXIT.ok;
  try {
    const pools = await Promise.all(scenarios.map((s) => Promise.all(Array.from({ length: s.vus }, () => startVU()))));
    // setup() and teardown() run in a VU of their own, numbered 0, outside every scenario.
    const special = script.setup || script.teardown ? await startVU(0) : undefined;
    let data;
    if (script.setup) {
      const setupMs = durationMs(options.setupTimeout ?? "60s");
      const done = await within(setupMs, special.call("setup", "setup"), () => ({ timedOut: true }));
      if (done.timedOut) {
        log(`ERRO setup() execution timed out after ${setupMs / 1000} seconds`);
        return EXIT.setupTimeout;
      }
      if (done.error) {
        log(`ERRO ${done.error}\n  in setup()`);
        return EXIT.scriptError;
      }
      data = done.data;
      for (const vu of all) vu.give(data);
    }

    const counts = new Map(scenarios.map((s) => [s.name, { complete: 0, interrupted: 0 }]));
    const sampleVUs = () => {
      results.add({ metric: "vus", type: "gauge", isTime: false, value: all.filter((vu) => vu.busy && vu !== special).length, tags: {} });
      results.add({ metric: "vus_max", type: "gauge", isTime: false, value: all.length - (special ? 1 : 0), tags: {} });
    };
    sampleVUs();
    const sampler = setInterval(sampleVUs, 1000);
    await Promise.all(
      scenarios.map((s, i) =>
        s.run(s, {
          vus: pools[i],
          results,
          log,
          async iterate(vu) {
            const call = vu.call("iterate", "default", s.name);
            sampleVUs();
            const done = await call;
            counts.get(s.name)[done.interrupted ? "interrupted" : "complete"] += 1;
            if (done.error) log(`ERRO ${done.error}  executor=${s.executor} scenario=${s.name} source=stacktrace`);
            return done;
          },
          async grow() {
            const vu = await startVU();
            if (data !== undefined) vu.give(data);
            pools[i].push(vu);
            return vu;
          },
        }),
      ),
    );
    clearInterval(sampler);
    sampleVUs();
    const took = formatDuration(performance.now() - started);
    for (const s of scenarios) {
      const c = counts.get(s.name);
      out.write(`     running (${took}), ${s.name}: ${c.complete} complete and ${c.interrupted} interrupted iterations\n`);
    }

    if (script.teardown) {
      const teardownMs = durationMs(options.teardownTimeout ?? "60s");
      const done = await within(teardownMs, special.call("teardown", "teardown"), () => ({ timedOut: true }));
      if (done.timedOut) {
        log(`ERRO teardown() execution timed out after ${teardownMs / 1000} seconds`);
        code = EXIT.teardownTimeout;
      } else if (done.error) {
        log(`ERRO ${done.error}\n  in teardown()`);
        code = EXIT.scriptError;
      }
    }
  } catch (e) {
    if (!(e instanceof ScriptError)) throw e;
    log(`ERRO ${e.message}`);
    return EXIT.scriptError;
  } finally {
    await stopAll();
  }

  results.end();
  const trendStats = options.summaryTrendStats ?? DEFAULT_TREND_STATS;
  out.write(summaryText(results, trendStats));
  if (summaryExport) writeFileSync(summaryExport, `${JSON.stringify(exportedSummary(results, trendStats), null, 2)}\n`);
  const crossed = [...new Set(results.verdicts().filter((v) => !v.ok).map((v) => v.key))];
  if (crossed.length > 0) {
    log(`ERRO thresholds on metrics '${crossed.join("', '")}' have been crossed`);
    if (code === EXIT.ok) code = EXIT.thresholds;
  }
  return code;
}
