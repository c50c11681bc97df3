// A whole Cardlink in the test process — the harness, every role, and the API on a real port — for tests
// that drive it as a user does: the CLI as a process (`cardlink listen`, `trigger`, `run`) over HTTP.
import { spawn } from "node:child_process";
import { afterAll, beforeAll } from "vitest";
import { ADMIN_TOKEN, createHarness, type Harness } from "./harness.ts";
import { ALL_ROLES, startRoles, type RoleOptions, type RunningRoles } from "../../src/app/roles.ts";
import { serveApi, type Listening } from "../../src/app/http.ts";

export interface Served {
  h: Harness;
  /** The API's base URL, e.g. http://localhost:41234. */
  url: string;
  adminToken: string;
}

/** Starts the system before the file's tests and stops it after; read `.s` inside tests. */
export function useServed(options: { clockStart?: string; env?: Record<string, string>; roles?: RoleOptions } = {}): { readonly s: Served } {
  let served: Served | undefined;
  let running: RunningRoles | undefined;
  let api: Listening | undefined;
  beforeAll(async () => {
    const h = await createHarness({ env: { PORT: "0", ...options.env }, ...(options.clockStart ? { clockStart: options.clockStart } : {}) });
    running = await startRoles(h.services, ALL_ROLES, options.roles);
    api = await serveApi(h.services, ADMIN_TOKEN);
    served = { h, url: api.url, adminToken: ADMIN_TOKEN };
  });
  afterAll(async () => {
    await api?.close();
    await running?.stop();
    await served?.h.close();
  });
  return {
    get s() {
      if (!served) throw new Error("useServed: the system starts in beforeAll");
      return served;
    },
  };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Resolves once `probe` holds, looking every 50 ms; fails naming `what` after `ms`. */
export async function waitFor(probe: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * `cardlink <args>` as a process, without blocking this one (the server it talks to runs here). The
 * server variables are cleared so the command is a client only; `env` goes over them.
 */
export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/cardlink.mjs", ...args], {
      env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", CARDLINK_URL: "", ADMIN_TOKEN: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * A `cardlink <args>` that runs until stopped (`listen`, `logs tail`), as in a terminal: its output so far,
 * a wait for a text on stdout or stderr, and Ctrl-C (SIGINT), which answers its exit code. Cleared of the
 * server variables as runCli is.
 */
export function startCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["bin/cardlink.mjs", ...args], {
    env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", CARDLINK_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    async until(text: string, on: "stdout" | "stderr" = "stdout") {
      const output = () => (on === "stdout" ? stdout : stderr);
      await waitFor(() => output().includes(text) || child.exitCode !== null, `"${text}" from cardlink ${args.join(" ")}`);
      if (!output().includes(text)) throw new Error(`cardlink ${args[0]} exited with ${child.exitCode}: ${stdout}${stderr}`);
    },
    stop(): Promise<number | null> {
      child.kill("SIGINT");
      return exited;
    },
  };
}
