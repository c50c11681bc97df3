// What a run measured: every metric's aggregate (k6's sinks), the sub-metrics its thresholds name
// ("http_req_duration{name:GET /v1/cards/{id}}"), the checks by group, and the thresholds' verdicts.

/** k6's built-in metrics that a threshold may name before any sample of them arrives. */
const BUILT_IN = {
  checks: { type: "rate", isTime: false },
  dropped_iterations: { type: "counter", isTime: false },
  group_duration: { type: "trend", isTime: true },
  http_req_duration: { type: "trend", isTime: true },
  http_req_failed: { type: "rate", isTime: false },
  http_req_receiving: { type: "trend", isTime: true },
  http_req_waiting: { type: "trend", isTime: true },
  http_reqs: { type: "counter", isTime: false },
  iteration_duration: { type: "trend", isTime: true },
  iterations: { type: "counter", isTime: false },
  vus: { type: "gauge", isTime: false },
  vus_max: { type: "gauge", isTime: false },
};

/** The aggregations a threshold may use on each type of metric. */
const AGGREGATIONS = { counter: ["count", "rate"], gauge: ["value"], rate: ["rate"], trend: ["avg", "min", "max", "med", "p"] };

class Sink {
  constructor(type) {
    this.type = type;
    this.samples = 0;
    this.sum = 0; // counter: its count
    this.passes = 0; // rate: the non-zero samples
    this.values = []; // trend
    this.value = 0; // gauge: the last value
    this.min = Infinity;
    this.max = -Infinity;
    this.sorted = true;
  }

  add(value) {
    this.samples += 1;
    this.sum += value;
    if (value !== 0) this.passes += 1;
    if (this.type === "trend") {
      if (this.values.length > 0 && value < this.values[this.values.length - 1]) this.sorted = false;
      this.values.push(value);
    }
    this.value = value;
    this.min = Math.min(this.min, value);
    this.max = Math.max(this.max, value);
  }

  /** p(q) with linear interpolation between the closest ranks, as k6 computes it; 0 without samples. */
  percentile(q) {
    if (this.values.length === 0) return 0;
    if (!this.sorted) {
      this.values.sort((a, b) => a - b);
      this.sorted = true;
    }
    const rank = ((this.values.length - 1) * q) / 100;
    const low = Math.floor(rank);
    const high = Math.min(low + 1, this.values.length - 1);
    return this.values[low] + (this.values[high] - this.values[low]) * (rank - low);
  }

  /** An aggregation by its threshold name: avg, min, max, med, p(95), count, rate, value. */
  stat(name, seconds) {
    const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(name);
    if (p) return this.percentile(Number(p[1]));
    switch (name) {
      case "avg":
        return this.samples === 0 ? 0 : this.sum / this.samples;
      case "min":
        return this.samples === 0 ? 0 : this.min;
      case "max":
        return this.samples === 0 ? 0 : this.max;
      case "med":
        return this.percentile(50);
      case "count":
        return this.type === "counter" ? this.sum : this.samples;
      case "rate":
        return this.type === "counter" ? this.sum / Math.max(seconds, 1e-9) : this.samples === 0 ? 0 : this.passes / this.samples;
      case "value":
        return this.value;
      default:
        throw new Error(`no aggregation ${name}`);
    }
  }
}

const THRESHOLD = /^\s*(avg|min|max|med|count|rate|value|p\(\d+(?:\.\d+)?\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;
const COMPARE = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "==": (a, b) => a === b,
  "===": (a, b) => a === b,
  "!=": (a, b) => a !== b,
};

/** "metric" or "metric{tag:value,other:value}" (a value may hold braces and spaces, not a comma). */
function parseKey(key) {
  const open = key.indexOf("{");
  if (open === -1) return { metric: key, tags: {} };
  if (!key.endsWith("}")) throw new Error(`threshold ${JSON.stringify(key)}: a sub-metric is metric{tag:value}`);
  const tags = {};
  for (const pair of key.slice(open + 1, -1).split(",")) {
    const colon = pair.indexOf(":");
    if (colon < 1) throw new Error(`threshold ${JSON.stringify(key)}: a sub-metric is metric{tag:value}`);
    tags[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
  }
  return { metric: key.slice(0, open), tags };
}

export class Results {
  /** `thresholds` as the script's options give them; `declared` the custom metrics of k6/metrics. */
  constructor(thresholds = {}, declared = new Map()) {
    this.metrics = new Map();
    this.checks = new Map(); // "group\u0000name" -> { group, name, passes, fails }, in the order first seen
    this.thresholds = [];
    this.started = performance.now();
    this.ended = undefined;
    for (const [name, definition] of declared) this.define(name, definition);
    for (const [key, rules] of Object.entries(thresholds)) {
      const { metric, tags } = parseKey(key);
      const definition = this.metrics.get(metric) ?? this.define(metric, BUILT_IN[metric]);
      if (!definition) throw new Error(`threshold ${JSON.stringify(key)}: no metric ${metric} (neither k6's nor the script's)`);
      const sub = Object.keys(tags).length === 0 ? definition : this.subMetric(definition, key, tags);
      for (const rule of rules) {
        const m = typeof rule === "string" ? THRESHOLD.exec(rule) : null;
        if (!m) throw new Error(`threshold ${key}: ${JSON.stringify(rule)} is not "aggregation operator number" (such as p(95)<500)`);
        const aggregation = m[1].startsWith("p(") ? "p" : m[1];
        if (!AGGREGATIONS[definition.type].includes(aggregation)) {
          throw new Error(`threshold ${key}: ${m[1]} does not apply to a ${definition.type} (it takes ${AGGREGATIONS[definition.type].join(", ")})`);
        }
        this.thresholds.push({ key, metric: sub, source: rule, stat: m[1], compare: COMPARE[m[2]], bound: Number(m[3]) });
      }
    }
  }

  define(name, definition) {
    if (!definition) return undefined;
    const metric = { name, ...definition, sink: new Sink(definition.type), subs: [] };
    this.metrics.set(name, metric);
    return metric;
  }

  subMetric(parent, key, tags) {
    const existing = parent.subs.find((s) => s.key === key);
    if (existing) return existing;
    const sub = { name: key, parent, type: parent.type, isTime: parent.isTime, tags, sink: new Sink(parent.type) };
    parent.subs.push(sub);
    return sub;
  }

  add({ metric, type, isTime, value, tags }) {
    const m = this.metrics.get(metric) ?? this.define(metric, { type, isTime });
    m.sink.add(value);
    for (const sub of m.subs) {
      if (Object.entries(sub.tags).every(([tag, wanted]) => tags[tag] === wanted)) sub.sink.add(value);
    }
    if (metric === "checks") {
      const id = `${tags.group}\u0000${tags.check}`;
      const c = this.checks.get(id) ?? { group: tags.group, name: tags.check, passes: 0, fails: 0 };
      this.checks.set(id, c);
      if (value) c.passes += 1;
      else c.fails += 1;
    }
  }

  end() {
    this.ended ??= performance.now();
  }

  /** Seconds from the start to the end of the run (to now while it runs): what counters' rates divide by. */
  get seconds() {
    return ((this.ended ?? performance.now()) - this.started) / 1000;
  }

  /** Each threshold with its aggregate and whether it held. */
  verdicts() {
    return this.thresholds.map((t) => {
      const value = t.metric.sink.stat(t.stat, this.seconds);
      return { key: t.key, source: t.source, stat: t.stat, value, isTime: t.metric.isTime, type: t.metric.type, ok: t.compare(value, t.bound) };
    });
  }
}
