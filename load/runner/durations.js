// k6's duration strings ("500ms", "45s", "1m30s", "1h"), read to milliseconds and written back.
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration string; a bare number is seconds, as k6 reads it. */
export function durationMs(value) {
  if (typeof value === "number") return value * 1000;
  const text = String(value).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) throw new Error(`${JSON.stringify(value)}: not a duration (such as 500ms, 45s, 1m30s)`);
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) ms += Number(n) * UNIT_MS[unit];
  return ms;
}

/** "1m30s", "45s", "1.5s", "250ms". */
export function formatDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 100) / 10;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}
