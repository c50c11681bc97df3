import { defineConfig } from "vitest/config";

// Two cores: keep workers few so the real servers in integration tests are not starved. The fault suite
// (roles as processes, a broker and a PostgreSQL of its own, answers timed to the second), the
// schemathesis check (a server under a generated load) and the k6 scenarios (a server under load, held to
// latency thresholds) run after everything else, one file at a time, so what they measure is Cardlink and
// not the other suites beside them.
const ALONE = ["test/faults/**/*.test.ts", "test/api/schemathesis.test.ts", "test/load/runner.test.ts"];

export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: "suite", include: ["test/**/*.test.ts"], exclude: ALONE } },
      { extends: true, test: { name: "alone", include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
