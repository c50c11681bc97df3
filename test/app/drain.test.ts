// Graceful drain of a real `cardlink start` under load: SIGTERM while clients send test purchases
// back to back (each waits for the qualifier) answers every purchase sent before it — none is reset —
// and exits 0; after a restart on the same DATA_DIR every purchase answered 201 or 202 is there.
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "node:http";
import { startServer, type ServerProcess } from "../support/server-process.ts";
import type { Harness, TestAccount } from "../support/harness.ts";
import { world } from "../support/offers-world.ts";

const ADMIN_TOKEN = "adm_drain_test_0123456789abcdef";
const dir = mkdtempSync(join(tmpdir(), "cardlink-drain-"));
let server: ServerProcess | undefined;

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill("SIGKILL");
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The parts of the test harness world() uses, over real HTTP to `url`. */
function httpHarness(url: string): Pick<Harness, "createAccount" | "admin"> {
  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const admin = (method: string, path: string, body?: unknown) => send(method, path, { Authorization: `Bearer ${ADMIN_TOKEN}` }, body);
  return {
    admin,
    async createAccount() {
      const account = (await (await admin("POST", "/admin/accounts", { name: "Drain", tier: "standard" })).json()) as Omit<TestAccount, "as">;
      return {
        ...account,
        as: (env) => {
          const headers = { "Cardlink-Key": account.keys[env] };
          return {
            get: (path) => send("GET", path, headers),
            post: (path, body) => send("POST", path, headers, body ?? {}),
            patch: (path, body) => send("PATCH", path, headers, body ?? {}),
            delete: (path) => send("DELETE", path, headers),
          };
        },
      };
    },
  };
}

/** POST over a keep-alive agent of `sockets` connections, as a client's connection pool sends. */
function pooledPost(url: string, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const post = (path: string, key: string, body: unknown) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}${path}`, { method: "POST", agent, headers: { "content-type": "application/json", "Cardlink-Key": key } }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });
  return { post, destroy: () => agent.destroy() };
}

describe("SIGTERM under load", () => {
  it("answers every request sent before it, exits 0, and loses nothing", async () => {
    server = await startServer({ DATA_DIR: dir, ADMIN_TOKEN, DRAIN_TIMEOUT_SECONDS: "60" });
    const w = await world(httpHarness(server.url) as Harness);
    const key = w.acct.keys.test;
    const pool = pooledPost(server.url, 6);
    type Outcome = { sentBeforeSignal: boolean; status: number; id?: string; error?: string };
    const outcomes: Outcome[] = [];
    let signalled = false;
    let answered = 0;
    // Six clients send purchases back to back until the server stops taking them.
    const clients = Array.from({ length: 6 }, async (_, c) => {
      for (let i = 0; ; i++) {
        const sentBeforeSignal = !signalled;
        try {
          const res = await pool.post("/v1/transactions/test", key, { cardId: w.cardId, locationId: w.locationId, amount: 10 + c + i / 100 });
          outcomes.push({ sentBeforeSignal, status: res.status, id: (JSON.parse(res.body) as { id?: string }).id });
          answered++;
        } catch (err) {
          outcomes.push({ sentBeforeSignal, status: 0, error: (err as NodeJS.ErrnoException).code ?? String(err) });
          return;
        }
      }
    });
    while (answered < 12) await new Promise((r) => setTimeout(r, 20));
    signalled = true;
    server.child.kill("SIGTERM");
    await Promise.all(clients);
    pool.destroy();
    const exitCode = await server.exited;
    const before = outcomes.filter((o) => o.sentBeforeSignal);
    // Every purchase sent before the signal was answered (201, or 202 when the qualifier had not recorded it yet).
    expect(before.filter((o) => o.status !== 201 && o.status !== 202), server.output().slice(-2000)).toEqual([]);
    expect(before.length).toBeGreaterThanOrEqual(12);
    expect(exitCode).toBe(0);
    expect(server.output()).toContain('"msg":"drained"');

    server = await startServer({ DATA_DIR: dir, ADMIN_TOKEN });
    const restarted = server;
    const accepted = outcomes.filter((o) => o.status === 201 || o.status === 202);
    const missing = async () => {
      const found = await Promise.all(
        accepted.map(async (o) => (await fetch(`${restarted.url}/v1/transactions/${o.id}`, { headers: { "Cardlink-Key": key } })).status),
      );
      return accepted.filter((_, i) => found[i] !== 200).map((o) => o.id);
    };
    // A purchase answered 202 was sent but not recorded yet: the restarted qualifier records it.
    const deadline = Date.now() + 60_000;
    let left = await missing();
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      left = await missing();
    }
    expect(left).toEqual([]);
  }, 240_000);
});
