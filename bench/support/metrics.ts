// Reads the roles' Prometheus metrics (/metrics on each role's health port, or the API's port under
// `cardlink start`) before and after a run, and turns the histograms' growth over the run into per-hop
// times: p50 and p99 from the buckets (the upper bound of the bucket the quantile falls in), summed over
// every process that reports the same series.
export type MetricsSnapshot = Map<string, Map<number, number>>;

/** Every histogram series (name and labels but `le`) with its cumulative bucket counts, over all roles. */
export async function readMetrics(targets: { role: string; url: string }[]): Promise<MetricsSnapshot> {
  const series: MetricsSnapshot = new Map();
  await Promise.all(
    targets.map(async ({ url }) => {
      const res = await fetch(url).catch(() => undefined);
      if (!res || res.status !== 200) return;
      for (const line of (await res.text()).split("\n")) {
        const m = line.match(/^([a-zA-Z_:][\w:]*)_bucket\{(.*)\} (\S+)$/);
        if (!m) continue;
        const labels = m[2]!.split(/,(?=\w+=")/).filter((l) => !l.startsWith("le="));
        const le = m[2]!.match(/(?:^|,)le="([^"]+)"/)?.[1];
        if (le === undefined) continue;
        const key = `${m[1]}{${labels.join(",")}}`;
        const buckets = series.get(key) ?? new Map<number, number>();
        const bound = le === "+Inf" ? Infinity : Number(le);
        buckets.set(bound, (buckets.get(bound) ?? 0) + Number(m[3]));
        series.set(key, buckets);
      }
    }),
  );
  return series;
}

function quantileOf(buckets: [number, number][], q: number): number {
  const total = buckets[buckets.length - 1]![1];
  const rank = q * total;
  for (const [bound, count] of buckets) if (count >= rank) return bound;
  return Infinity;
}

const seconds = (s: number) => (s === Infinity ? "> top bucket" : s >= 1 ? `≤ ${s} s` : `≤ ${Math.round(s * 1000)} ms`);

/** One line per series that grew: its name, how many it counted and its p50 and p99 over the run. */
export function hopTimes(before: MetricsSnapshot, after: MetricsSnapshot, include: RegExp = /hop/): string[] {
  const lines: string[] = [];
  for (const [key, buckets] of after) {
    if (!include.test(key)) continue;
    const earlier = before.get(key) ?? new Map<number, number>();
    const grown = [...buckets].map(([bound, n]) => [bound, n - (earlier.get(bound) ?? 0)] as [number, number]).sort((a, b) => a[0] - b[0]);
    const count = grown[grown.length - 1]?.[1] ?? 0;
    if (count <= 0) continue;
    lines.push(`${key}: ${count} observed; p50 ${seconds(quantileOf(grown, 0.5))}, p99 ${seconds(quantileOf(grown, 0.99))}`);
  }
  if (lines.length === 0) lines.push("per hop: no hop histograms on the roles' /metrics");
  return lines.sort();
}

/** A counter's value summed over every role (its series, whatever their labels). */
export async function counterTotal(targets: { role: string; url: string }[], name: string): Promise<number> {
  const values = await Promise.all(
    targets.map(async ({ url }) => {
      const res = await fetch(url).catch(() => undefined);
      if (!res || res.status !== 200) return 0;
      let sum = 0;
      for (const line of (await res.text()).split("\n")) {
        const m = line.match(/^([a-zA-Z_:][\w:]*)(?:\{.*\})? (\S+)$/);
        if (m && m[1] === name) sum += Number(m[2]);
      }
      return sum;
    }),
  );
  return values.reduce((a, b) => a + b, 0);
}
