// `cardlink listen` as a process against a running Cardlink: one secret for all its hooks, printed at the
// start and by --print-secret, so a --forward-to server verifies what it is sent; --print-json prints each
// verified body alone on stdout; the server's URL is found through DATA_DIR's lock when not given; with the
// account's key and --sandbox it listens in the sandbox; --since and --resume show the events fired while it
// was stopped, oldest first, then go on live, no event twice.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { expectStatus } from "../../support/harness.ts";
import { startReceiver } from "../../support/receiver.ts";
import { runCli, startCli, useServed } from "../../support/served.ts";

// A running clock: each event is written at its own instant, so "oldest first" is the order they were fired in.
const served = useServed({ env: { CLOCK_SPEED: "1" } });

/** `cardlink listen ARGS` as a process, as in a terminal. */
const startListen = (args: string[], env: Record<string, string>) => startCli(["listen", ...args], env);

describe("cardlink listen", () => {
  it("signs every hook with one secret it prints, forwards verifiably and prints each body with --print-json", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const dataDir = mkdtempSync(join(tmpdir(), "cardlink-listen-"));
    // The server's URL comes from DATA_DIR's lock, as `npm start` records it (held here by this live process).
    writeFileSync(join(dataDir, "cardlink.lock"), JSON.stringify({ pid: process.pid, command: "start", started: new Date().toISOString(), url: s.url }));
    const env = { DATA_DIR: dataDir };

    const printed = await runCli(["listen", "--print-secret"], env);
    expect(printed.status).toBe(0);
    const secret = printed.stdout.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect((await runCli(["listen", "--print-secret"], env)).stdout.trim()).toBe(secret);

    const target = await startReceiver();
    const listener = startListen(["--key", account.keys.test, "--port", "0", "--events", "transaction.auth.qualified", "--forward-to", target.url, "--print-json"], env);
    try {
      await listener.until("ready:", "stderr");
      expect(listener.stderr()).toContain(`signing secret: ${secret}`);
      // In a checkout the hint runs cardlink through npm (installed, it says npx cardlink: test/infra/package.test.ts).
      expect(listener.stderr()).toContain("ready: in another terminal, npm run cardlink -- trigger transaction.auth.qualified");
      expect(listener.stdout()).toBe("");

      const fired = await expectStatus<{ eventIds: string[]; deliveries: { status: string }[] }>(
        await account.as("test").post("/v1/trigger", { event: "transaction.auth.qualified" }),
        200,
      );
      expect(fired.deliveries).toMatchObject([{ status: "succeeded" }]);
      const [forwarded] = await target.waitFor(1);
      const verified = new Webhook(secret).verify(forwarded!.body, forwarded!.headers as Record<string, string>) as { id: string; event: string };
      expect(verified).toMatchObject({ id: fired.eventIds[0], event: "transaction.auth.qualified" });
      await listener.until("\n");
      expect(listener.stdout().trim().split("\n").map((l) => JSON.parse(l) as unknown)).toEqual([verified]);
    } finally {
      await listener.stop();
      await target.close();
    }
    const { programId } = await expectStatus<{ programId: string }>(await account.as("test").post("/v1/trigger/fixtures"), 200);
    expect((await expectStatus<{ count: number }>(await account.as("test").get(`/v1/programs/${programId}/hooks`), 200)).count).toBe(0);
  });

  it("listens in a sandbox with the account's key and --sandbox, and removes its hooks there", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const sandbox = await expectStatus<{ id: string; keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "listen" }), 201);
    const inSandbox = { "Cardlink-Key": sandbox.keys.test };
    const listener = startListen(
      ["--key", account.keys.test, "--sandbox", sandbox.id, "--port", "0", "--events", "transaction.auth.qualified", "--url", s.url],
      { DATA_DIR: mkdtempSync(join(tmpdir(), "cardlink-listen-")) },
    );
    let programId = "";
    try {
      await listener.until("ready:");
      const fired = await expectStatus<{ eventIds: string[]; resources: { programId: string }; deliveries: { status: string }[] }>(
        await s.h.request("POST", "/v1/trigger", { headers: inSandbox, body: { event: "transaction.auth.qualified" } }),
        200,
      );
      programId = fired.resources.programId;
      expect(fired.deliveries).toMatchObject([{ status: "succeeded" }]);
      await listener.until(`transaction.auth.qualified ${fired.eventIds[0]}`);
    } finally {
      await listener.stop();
    }
    expect((await expectStatus<{ count: number }>(await s.h.request("GET", `/v1/programs/${programId}/hooks`, { headers: inSandbox }), 200)).count).toBe(0);
    expect((await expectStatus<{ count: number }>(await account.as("test").get("/v1/programs"), 200)).count).toBe(0);
  });

  it("shows with --since the events fired while it was stopped, oldest first, then goes on live; --resume picks up after the last one shown", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "cardlink-listen-")) };
    const args = ["--key", account.keys.test, "--port", "0", "--events", "transaction.auth.qualified", "--url", s.url];
    const fire = async () =>
      (await expectStatus<{ eventIds: string[] }>(await account.as("test").post("/v1/trigger", { event: "transaction.auth.qualified" }), 200)).eventIds[0]!;
    const shown = (stdout: string) => [...stdout.matchAll(/^transaction\.auth\.qualified (\S+) /gm)].map((m) => m[1]);

    const first = startListen(args, env);
    await first.until("ready:");
    const e1 = await fire();
    await first.until(`transaction.auth.qualified ${e1}`);
    await first.stop();
    // Fired while no listener runs (its hooks went with it).
    const e2 = await fire();
    const e3 = await fire();

    const resumed = startListen([...args, "--resume"], env);
    let e4 = "";
    try {
      await resumed.until("ready:");
      expect(resumed.stdout()).toContain("caught up: 2 events since");
      expect(shown(resumed.stdout())).toEqual([e2, e3]);
      // Delivered live after it was caught up on (a redelivery to the listener's hook): answered, not shown again.
      expect((await account.as("test").post(`/v1/webhook-events/${e2}/redeliver`)).status).toBe(202);
      e4 = await fire();
      await resumed.until(`transaction.auth.qualified ${e4}`);
      const redelivered = async () =>
        (await expectStatus<{ deliveries: { status: string }[] }>(await account.as("test").get(`/v1/webhook-events/${e2}`), 200)).deliveries.some((d) => d.status === "succeeded");
      while (!(await redelivered())) await new Promise((r) => setTimeout(r, 50));
      await resumed.stop();
      expect(shown(resumed.stdout())).toEqual([e2, e3, e4]);
    } finally {
      await resumed.stop();
    }

    // Caught up on, each past event is forwarded too, signed with the listener's secret and its own id, in order.
    const target = await startReceiver();
    const since = startListen([...args, "--since", "1h", "--forward-to", target.url], env);
    try {
      await since.until("ready:");
      expect(shown(since.stdout())).toEqual([e1, e2, e3, e4]);
      const secret = /signing secret: (whsec_\S+)/.exec(since.stdout())![1]!;
      const forwarded = await target.waitFor(4);
      expect(forwarded.map((f) => (new Webhook(secret).verify(f.body, f.headers as Record<string, string>) as { id: string }).id)).toEqual([e1, e2, e3, e4]);
    } finally {
      await since.stop();
      await target.close();
    }
  });
});
