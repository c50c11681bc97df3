import { defineConfig } from "vitest/config";

// Two cores: keep workers few so the real servers in integration tests are not starved.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
