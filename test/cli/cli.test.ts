// The installed `cardlink` command: usage, exit codes, and a bad setting stopping start-up by name.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";

const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ["bin/cardlink.mjs", ...args], { encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });

describe("cardlink command", () => {
  it("prints its commands for help", () => {
    const result = run(["help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: cardlink <command>/);
    for (const command of ["start", "api", "qualifier", "dispatcher", "workers", "simulator", "listen", "migrate"]) {
      expect(result.stdout).toContain(`  ${command}`);
    }
  });

  it("exits 64 with the usage for an unknown command", () => {
    const result = run(["frobnicate"]);
    expect(result.status).toBe(64);
    expect(result.stderr).toMatch(/^unknown command frobnicate/);
  });

  it("refuses to start with a bad setting and names the variable", () => {
    const result = run(["start"], { PORT: "eighty", CLOCK_SPEED: "-1" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("PORT:");
    expect(result.stderr).toContain("CLOCK_SPEED: must be 0 (frozen) or more");
  });
});
