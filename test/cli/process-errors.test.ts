// Every CLI command fails in one line and a non-zero exit, never a stack trace; `start` checks PORT before it
// opens DATA_DIR's database; commands that talk to a server find it by --url, CARDLINK_URL, the running
// `npm start`'s DATA_DIR lock, then http://localhost:3000. Run as processes, as a user runs them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

const run = (args: string[], env: Record<string, string | undefined> = {}) =>
  new Promise<Result>((resolve) => {
    const child = spawn(process.execPath, ["bin/cardlink.mjs", ...args], {
      env: { ...process.env, CARDLINK_URL: undefined, ADMIN_TOKEN: "adm_cli_test_token", LOG_LEVEL: "silent", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });

/** One line on stderr and no stack frame. */
const oneLine = (r: Result) => {
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return r.stderr.trim();
};

let dataDir: string;
let taken: Server;
let takenPort: number;
const seen: { server: string; path: string }[] = [];
const receivers: Server[] = [];

/** A stand-in server that records which of them a command reached, answering the faults as JSON. */
async function receiver(name: string): Promise<string> {
  const server = createServer((req, res) => {
    seen.push({ server: name, path: req.url ?? "" });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ scheme: "visa", from: name }));
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "cardlink-cli-"));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, () => resolve()));
  takenPort = (taken.address() as { port: number }).port;
});
afterAll(() => {
  taken.close();
  for (const server of receivers) server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("failures are one line", () => {
  it("an unknown option of trigger", async () => {
    const r = await run(["trigger", "transaction.auth", "--unknown-option"], { DATA_DIR: dataDir });
    expect(r.status).toBe(64);
    expect(oneLine(r)).toMatch(/^trigger: Unknown option '--unknown-option'/);
  });

  it("a usage mistake of every kind, a simulator command's among them: one line naming it, exit 64", async () => {
    for (const [args, message] of [
      [["frobnicate"], "unknown command frobnicate (cardlink help lists the commands)"],
      [[], "no command given (cardlink help lists the commands)"],
      [["start", "--frobnicate"], /^start: Unknown option '--frobnicate'.*\(cardlink help lists the options\)$/],
      [["migrate", "now"], "migrate: takes no argument now (cardlink help lists the options)"],
      [["faults", "reset", "--scheme", "visa"], "faults: the subcommand is get, set or clear (cardlink help faults shows its usage)"],
      [["faults", "set", "--scheme", "visa", "--drop-rate", "lots"], "--drop-rate: must be a number"],
      [["traffic", "start", "--seed", "1"], "--rate: must be a number of purchases per second"],
      [["simulate", "--scheme", "visa", "--seed", "1", "--count", "0", "--out", join(dataDir, "x.jsonl")], "--count: must be a whole number of at least 1"],
      [["simulator", "--scheme", "discover"], "--scheme: must be visa, mastercard or amex"],
      [["help", "frobnicate"], "help: unknown command frobnicate (cardlink help lists the commands)"],
    ] as const) {
      const r = await run([...args], { DATA_DIR: dataDir });
      expect(r.status, args.join(" ")).toBe(64);
      expect(r.stdout).toBe("");
      if (typeof message === "string") expect(oneLine(r)).toBe(message);
      else expect(oneLine(r)).toMatch(message);
    }
  }, 120_000);

  it("listen on a port in use", async () => {
    const r = await run(["listen", "--secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "--port", String(takenPort)], { DATA_DIR: dataDir });
    expect(r.status).toBe(1);
    expect(oneLine(r)).toBe(`--port ${takenPort}: already in use by another process; choose a free port with --port`);
  });

  it("faults when no server answers", async () => {
    const r = await run(["faults", "get", "--scheme", "visa", "--url", "http://127.0.0.1:9"], { DATA_DIR: dataDir });
    expect(r.status).toBe(1);
    expect(oneLine(r)).toMatch(/^cannot reach Cardlink at http:\/\/127\.0\.0\.1:9 /);
  });

  it("start on a port in use: one line naming PORT, before DATA_DIR's database is opened", async () => {
    const fresh = join(dataDir, "fresh");
    const r = await run(["start"], { DATA_DIR: fresh, PORT: String(takenPort), DATABASE_URL: undefined, KAFKA_BROKERS: undefined, SCHEMA_REGISTRY_URL: undefined });
    expect(r.status).toBe(1);
    expect(oneLine(r)).toBe(`PORT ${takenPort} is already in use by another process: stop it, or set PORT to a free port (PORT=3001 npm start).`);
    expect(existsSync(fresh) ? readdirSync(fresh) : []).toEqual([]);
  });
});

describe("the server a command talks to", () => {
  it("is --url, then CARDLINK_URL, then the running npm start's URL in the DATA_DIR lock", async () => {
    const [fromFlag, fromEnv, fromLock] = [await receiver("flag"), await receiver("env"), await receiver("lock")];
    // The lock of a live process (this one) that serves the API at fromLock.
    writeFileSync(join(dataDir, "cardlink.lock"), JSON.stringify({ pid: process.pid, command: "start", started: new Date().toISOString(), url: fromLock }));
    const faults = ["faults", "get", "--scheme", "visa"];
    const traffic = ["traffic", "status"];
    for (const [args, env, expected] of [
      [[...faults, "--url", fromFlag], { CARDLINK_URL: fromEnv }, "flag"],
      [faults, { CARDLINK_URL: fromEnv }, "env"],
      [faults, {}, "lock"],
      [traffic, {}, "lock"],
      [[...traffic, "--url", fromFlag], {}, "flag"],
    ] as const) {
      seen.length = 0;
      const r = await run([...args], { DATA_DIR: dataDir, ...env });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(seen.map((s) => s.server)).toEqual([expected]);
    }
    rmSync(join(dataDir, "cardlink.lock"));
  }, 60_000);
});
