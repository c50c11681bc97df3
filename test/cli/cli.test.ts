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

  it("lists every command's usage, and prints one command's alone for help <command>", () => {
    const all = run(["help"]).stdout;
    for (const command of ["start", "api", "qualifier", "dispatcher", "workers", "migrate", "listen", "logs", "trigger", "run", "sandbox", "clock", "keys", "account", "mid-insights", "simulate", "simulator", "faults", "traffic"]) {
      const one = run(["help", command]);
      expect(one.status).toBe(0);
      expect(one.stdout).toMatch(new RegExp(`^  ${command}\\b`));
      expect(all).toContain(one.stdout);
    }
  });

  it("exits 64 naming an unknown command", () => {
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
