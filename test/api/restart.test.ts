// The real CLI, stopped and started again on the same DATA_DIR: data, keys and the admin token survive.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { freePort } from "../support/role-process.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSX = join(ROOT, "node_modules/.bin/tsx");
const dataDir = mkdtempSync(join(tmpdir(), "cardlink-restart-"));
const running = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of running) await stop(child);
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  adminToken: string;
  testKey: string;
  liveKey: string;
}

/** `tsx src/main.ts start` on the shared DATA_DIR; resolves once it has printed its banner. */
async function start(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: "silent",
    ...env,
  };
  // The embedded defaults only: no outside database, broker or fixed admin token.
  for (const name of ["DATABASE_URL", "KAFKA_BROKERS", "SCHEMA_REGISTRY_URL", "ADMIN_TOKEN"]) delete childEnv[name];
  const child = spawn(TSX, ["src/main.ts", "start"], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner after 150 s:\n${out}\n${err}`)), 150_000);
    const check = () => {
      if (/live key:\s+\S+/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}\n${err}`));
    });
  });
  const field = (label: string) => out.match(new RegExp(`${label}:\\s+(\\S+)`))?.[1] ?? "";
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    adminToken: field("admin token"),
    testKey: field("test key"),
    liveKey: field("live key"),
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    running.delete(child);
    return;
  }
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
  running.delete(child);
}

const call = async (s: Started, method: string, path: string, auth: Record<string, string>, body?: unknown) => {
  const res = await fetch(s.url + path, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("restart on the same DATA_DIR", () => {
  it("keeps data, the admin token and the demo keys, which still work", { timeout: 360_000 }, async () => {
    const first = await start({ CLOCK_SPEED: "0", CLOCK_START: "2026-01-05T12:00:00Z" });
    expect(first.adminToken).toMatch(/^adm_/);
    expect(first.testKey).toMatch(/^sk_test_/);
    expect(first.liveKey).toMatch(/^sk_live_/);
    const admin = { Authorization: `Bearer ${first.adminToken}` };

    const program = await call(first, "POST", "/v1/programs", { "Cardlink-Key": first.testKey }, { name: "Survives" });
    expect(program.status).toBe(201);
    const brand = await call(first, "POST", "/v1/brands", { "Cardlink-Key": first.liveKey }, { name: "Live brand" });
    expect(brand.body.consent).toBe("requested");
    const account = await call(first, "POST", "/admin/accounts", admin, { name: "Second", tier: "standard" });
    expect(account.status).toBe(201);
    const secondKey = (account.body.keys as { test: string }).test;
    // The runtime runs due work when the clock is advanced: the simulated brand answers within 3 days.
    expect((await call(first, "POST", "/admin/clock/advance", admin, { days: 3 })).status).toBe(200);
    expect((await call(first, "GET", `/v1/brands/${brand.body.id}`, { "Cardlink-Key": first.liveKey })).body.consent).toBe("approved");
    await stop(first.child);

    // A day of service time per second: the running sweep approves consent without anyone advancing the clock.
    const second = await start({ CLOCK_SPEED: "86400" });
    expect(second.adminToken).toBe(first.adminToken);
    expect(second.testKey).toBe(first.testKey);
    expect(second.liveKey).toBe(first.liveKey);
    const read = await call(second, "GET", `/v1/programs/${program.body.id}`, { "Cardlink-Key": second.testKey });
    expect(read).toEqual({ status: 200, body: program.body });
    expect((await call(second, "GET", `/v1/brands/${brand.body.id}`, { "Cardlink-Key": second.liveKey })).body.consent).toBe("approved");
    expect((await call(second, "GET", "/v1/programs", { "Cardlink-Key": secondKey })).status).toBe(200);
    expect((await call(second, "GET", "/admin/clock", { Authorization: `Bearer ${second.adminToken}` })).status).toBe(200);

    const later = await call(second, "POST", "/v1/brands", { "Cardlink-Key": second.liveKey }, { name: "Approved by the sweep" });
    expect(later.body.consent).toBe("requested");
    let consent = later.body.consent;
    for (let i = 0; i < 60 && consent === "requested"; i++) {
      await new Promise((r) => setTimeout(r, 250));
      consent = (await call(second, "GET", `/v1/brands/${later.body.id}`, { "Cardlink-Key": second.liveKey })).body.consent;
    }
    expect(consent).toBe("approved");
    await stop(second.child);
  });
});
