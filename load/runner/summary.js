// The end-of-test summary in k6's compact style (thresholds, checks, metrics by category), and the same
// results as k6's --summary-export JSON.

const round = (x, digits) => Number(x.toFixed(digits));

/** A time in k6's units: 684.12µs, 12.3ms, 1.14s, 1m2.5s. */
function time(ms) {
  if (ms === 0) return "0s";
  if (ms < 1) return `${round(ms * 1000, 2)}µs`;
  if (ms < 1000) return `${round(ms, 2)}ms`;
  if (ms < 60_000) return `${round(ms / 1000, 2)}s`;
  return `${Math.floor(ms / 60_000)}m${round((ms % 60_000) / 1000, 2)}s`;
}

const percent = (share) => `${(share * 100).toFixed(2)}%`;
const number = (x) => String(round(x, 6));

/** One metric's (or sub-metric's) aggregate, as k6 prints it after the dots. */
function shown(metric, trendStats, seconds) {
  const sink = metric.sink;
  switch (metric.type) {
    case "counter":
      return `${number(sink.sum).padEnd(7)} ${(sink.sum / seconds).toFixed(6)}/s`;
    case "gauge":
      return `${number(sink.value).padEnd(7)} min=${number(sink.stat("min"))} max=${number(sink.stat("max"))}`;
    case "rate":
      return `${percent(sink.stat("rate")).padEnd(7)} ${sink.passes} out of ${sink.samples}`;
    default:
      return trendStats.map((stat) => `${stat}=${stat === "count" ? sink.samples : (metric.isTime ? time : number)(sink.stat(stat, seconds))}`).join(" ");
  }
}

/** A threshold's aggregate: p(95)=8.3ms, rate=0.00%, count=0. */
function thresholdValue(v) {
  if (v.type === "rate") return `${v.stat}=${percent(v.value)}`;
  if (v.type === "trend" && v.isTime && v.stat !== "count") return `${v.stat}=${time(v.value)}`;
  return `${v.stat}=${number(v.value)}`;
}

const EXECUTION = new Set(["dropped_iterations", "group_duration", "iteration_duration", "iterations", "vus", "vus_max"]);
const CATEGORY = (name) => (name.startsWith("http_") ? "HTTP" : EXECUTION.has(name) ? "EXECUTION" : "CUSTOM");

export function summaryText(results, trendStats) {
  const seconds = results.seconds;
  const lines = [""];
  const verdicts = results.verdicts();
  if (verdicts.length > 0) {
    lines.push("  █ THRESHOLDS", "");
    for (const key of new Set(verdicts.map((v) => v.key))) {
      lines.push(`    ${key}`);
      for (const v of verdicts.filter((x) => x.key === key)) lines.push(`    ${v.ok ? "✓" : "✗"} '${v.source}' ${thresholdValue(v)}`);
      lines.push("");
    }
    lines.push("");
  }
  lines.push("  █ TOTAL RESULTS", "");

  // Every metric with samples, its sub-metrics (those thresholds name) under it.
  const rows = [];
  for (const metric of [...results.metrics.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    // checks have their own lines above the categories, as in k6.
    if (metric.sink.samples === 0 || metric.name === "checks") continue;
    rows.push({ category: CATEGORY(metric.name), label: metric.name, value: shown(metric, trendStats, seconds) });
    for (const sub of metric.subs) {
      const tags = Object.entries(sub.tags).map(([k, v]) => `${k}:${v}`).join(", ");
      rows.push({ category: CATEGORY(metric.name), label: `  { ${tags} }`, value: shown(sub, trendStats, seconds) });
    }
  }
  const checks = [...results.checks.values()];
  const passed = checks.reduce((n, c) => n + c.passes, 0);
  const total = passed + checks.reduce((n, c) => n + c.fails, 0);
  const checkRows = [
    { label: "checks_total", value: `${String(total).padEnd(7)} ${(total / seconds).toFixed(6)}/s` },
    { label: "checks_succeeded", value: `${percent(total ? passed / total : 0).padEnd(7)} ${passed} out of ${total}` },
    { label: "checks_failed", value: `${percent(total ? (total - passed) / total : 0).padEnd(7)} ${total - passed} out of ${total}` },
  ];
  const width = Math.max(...[...rows, ...checkRows].map((r) => r.label.length)) + 3;
  const row = (r) => `    ${r.label}${".".repeat(width - r.label.length)}: ${r.value}`;

  if (total > 0) {
    lines.push(...checkRows.map(row), "");
    let group;
    for (const c of checks) {
      if (c.group !== group) {
        group = c.group;
        if (group) lines.push(`    █ ${group.split("::").slice(1).join(" › ")}`, "");
      }
      const share = c.passes / (c.passes + c.fails);
      lines.push(`    ${c.fails === 0 ? "✓" : "✗"} ${c.name}`);
      if (c.fails > 0) lines.push(`      ↳  ${Math.floor(share * 100)}% — ✓ ${c.passes} / ✗ ${c.fails}`);
    }
    lines.push("");
  }
  for (const category of ["CUSTOM", "HTTP", "EXECUTION"]) {
    const inCategory = rows.filter((r) => r.category === category);
    if (inCategory.length > 0) lines.push(`    ${category}`, ...inCategory.map(row), "");
  }
  return `${lines.join("\n")}\n`;
}

/** k6's --summary-export: metrics (and sub-metrics) by name with their thresholds (true when crossed, as k6 writes them) and the checks. */
export function exportedSummary(results, trendStats) {
  const seconds = results.seconds;
  const crossed = new Map();
  for (const v of results.verdicts()) crossed.set(v.key, { ...crossed.get(v.key), [v.source]: !v.ok });
  const entry = (metric) => {
    const sink = metric.sink;
    const stats =
      metric.type === "counter"
        ? { count: sink.sum, rate: sink.sum / seconds }
        : metric.type === "gauge"
          ? { value: sink.value, min: sink.stat("min"), max: sink.stat("max") }
          : metric.type === "rate"
            ? { passes: sink.passes, fails: sink.samples - sink.passes, value: sink.stat("rate") }
            : Object.fromEntries(trendStats.map((stat) => [stat, sink.stat(stat, seconds)]));
    const thresholds = crossed.get(metric.name);
    return thresholds ? { ...stats, thresholds } : stats;
  };
  const metrics = {};
  for (const metric of results.metrics.values()) {
    metrics[metric.name] = entry(metric);
    for (const sub of metric.subs) metrics[sub.name] = entry(sub);
  }
  const root = { name: "", path: "", groups: {}, checks: {} };
  for (const c of results.checks.values()) {
    let at = root;
    for (const name of c.group.split("::").slice(1)) {
      at.groups[name] ??= { name, path: `${at.path}::${name}`, groups: {}, checks: {} };
      at = at.groups[name];
    }
    at.checks[c.name] = { name: c.name, path: `${at.path}::${c.name}`, passes: c.passes, fails: c.fails };
  }
  return { root_group: root, metrics, state: { testRunDurationMs: seconds * 1000 } };
}
