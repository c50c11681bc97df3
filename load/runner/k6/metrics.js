// k6's `k6/metrics` module: custom Counter, Gauge, Rate and Trend metrics. The constructors run in the init
// context, where `declared` keeps each metric's type so the runner can check thresholds against it.
import { emit } from "../vu-context.js";

export const declared = new Map();

class Metric {
  constructor(name, type, isTime = false) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) throw new Error(`metric name ${JSON.stringify(name)}: letters, digits and _, up to 128`);
    this.name = name;
    this.type = type;
    this.isTime = isTime;
    declared.set(name, { type, isTime });
  }

  add(value, tags) {
    emit(this.name, this.type, this.isTime, this.type === "rate" ? (value ? 1 : 0) : Number(value), tags);
  }
}

export class Counter extends Metric {
  constructor(name) {
    super(name, "counter");
  }
}

export class Gauge extends Metric {
  constructor(name, isTime = false) {
    super(name, "gauge", isTime);
  }
}

export class Rate extends Metric {
  constructor(name) {
    super(name, "rate");
  }
}

export class Trend extends Metric {
  constructor(name, isTime = false) {
    super(name, "trend", isTime);
  }
}
