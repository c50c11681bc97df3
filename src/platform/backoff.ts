// How long the n-th retry waits (n from 0): base · 2ⁿ, at most the cap. Every retry loop of the platform, the
// roles and the services takes its wait from here, each with its own base and cap.
export const backoffMs = (n: number, { baseMs = 100, capMs = 5_000 }: { baseMs?: number; capMs?: number } = {}): number =>
  Math.min(baseMs * 2 ** Math.min(n, 30), capMs);
