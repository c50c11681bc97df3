// One process per embedded database, across real processes: a second server on the same DATA_DIR
// refuses naming the directory and the running process; data-changing CLI commands go through the
// running server's /admin API, so what they create is there for the server (and after a restart).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type ServerProcess } from "../support/server-process.ts";

const ADMIN_TOKEN = "adm_lock_test_0123456789abcdef";
let dir: string;
let server: ServerProcess;

const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ["bin/cardlink.mjs", ...args], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", DATA_DIR: dir, ADMIN_TOKEN, LOG_LEVEL: "warn", ...env },
    timeout: 90_000,
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cardlink-lock-"));
  server = await startServer({ DATA_DIR: dir, ADMIN_TOKEN });
}, 120_000);
afterAll(async () => {
  if (server.child.exitCode === null) {
    server.child.kill("SIGTERM");
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("DATA_DIR lock", () => {
  it("records the holder's pid and URL", () => {
    const lock = JSON.parse(readFileSync(join(dir, "cardlink.lock"), "utf8")) as { pid: number; url: string };
    expect(lock.pid).toBe(server.child.pid);
    expect(lock.url).toMatch(/^http:\/\/localhost:\d+$/);
  });

  it("makes a second server on the same DATA_DIR refuse, naming the directory and the running process", () => {
    const second = cli(["start"], { PORT: "0" });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`DATA_DIR ${dir} is in use by process ${server.child.pid} (cardlink start`);
    expect(second.stderr).toContain("serving http://localhost:");
  }, 120_000);

  it("sends account create to the running server, whose keys then work", async () => {
    const created = cli(["account", "create", "--name", "Via admin", "--tier", "premium", "--json"]);
    expect(created.stderr).toBe("");
    expect(created.status).toBe(0);
    const account = JSON.parse(created.stdout) as { id: string; name: string; keys: { test: string } };
    expect(account.name).toBe("Via admin");
    const res = await fetch(`${server.url}/v1/account`, { headers: { "Cardlink-Key": account.keys.test } });
    expect(res.status).toBe(200);
  }, 120_000);

  it("is released on a drain and taken over from a process that is gone", async () => {
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    // A lock left by a crash names a process that no longer runs: the next process takes it over.
    writeFileSync(join(dir, "cardlink.lock"), JSON.stringify({ pid: 2 ** 22 + 12345, command: "start", started: "2026-01-01T00:00:00Z" }));
    const created = cli(["account", "create", "--json"]);
    expect(created.status).toBe(0);
    server = await startServer({ DATA_DIR: dir, ADMIN_TOKEN });
    const account = JSON.parse(created.stdout) as { keys: { live: string } };
    expect((await fetch(`${server.url}/v1/account`, { headers: { "Cardlink-Key": account.keys.live } })).status).toBe(200);
  }, 180_000);
});
