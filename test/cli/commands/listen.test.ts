// `cardlink listen` as a process against a running Cardlink: one secret for all its hooks, printed at the
// start and by --print-secret, so a --forward-to server verifies what it is sent; --print-json prints each
// verified body alone on stdout; the server's URL is found through DATA_DIR's lock when not given; with the
// account's key and --sandbox it listens in the sandbox.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { expectStatus } from "../../support/harness.ts";
import { startReceiver } from "../../support/receiver.ts";
import { runCli, useServed } from "../../support/served.ts";

const served = useServed();

const waitFor = async (probe: () => boolean, what: string, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

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
    const child = spawn(
      process.execPath,
      ["bin/cardlink.mjs", "listen", "--key", account.keys.test, "--port", "0", "--events", "transaction.auth.qualified", "--forward-to", target.url, "--print-json"],
      { env: { ...process.env, ...env, CARDLINK_URL: "", DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      await waitFor(() => stderr.includes("ready:") || child.exitCode !== null, "the listener to start");
      expect(stderr).toContain(`signing secret: ${secret}`);
      // In a checkout the hint runs cardlink through npm (installed, it says npx cardlink: test/infra/package.test.ts).
      expect(stderr).toContain("ready: in another terminal, npm run cardlink -- trigger transaction.auth.qualified");
      expect(stdout).toBe("");

      const fired = await expectStatus<{ eventIds: string[]; deliveries: { status: string }[] }>(
        await account.as("test").post("/v1/trigger", { event: "transaction.auth.qualified" }),
        200,
      );
      expect(fired.deliveries).toMatchObject([{ status: "succeeded" }]);
      const [forwarded] = await target.waitFor(1);
      const verified = new Webhook(secret).verify(forwarded!.body, forwarded!.headers as Record<string, string>) as { id: string; event: string };
      expect(verified).toMatchObject({ id: fired.eventIds[0], event: "transaction.auth.qualified" });
      await waitFor(() => stdout.includes("\n"), "the printed body");
      expect(stdout.trim().split("\n").map((l) => JSON.parse(l) as unknown)).toEqual([verified]);
    } finally {
      child.kill("SIGINT");
      await exited;
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
    const child = spawn(
      process.execPath,
      ["bin/cardlink.mjs", "listen", "--key", account.keys.test, "--sandbox", sandbox.id, "--port", "0", "--events", "transaction.auth.qualified", "--url", s.url],
      { env: { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), "cardlink-listen-")), CARDLINK_URL: "", DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let programId = "";
    try {
      await waitFor(() => stdout.includes("ready:") || child.exitCode !== null, "the listener to start");
      const fired = await expectStatus<{ eventIds: string[]; resources: { programId: string }; deliveries: { status: string }[] }>(
        await s.h.request("POST", "/v1/trigger", { headers: inSandbox, body: { event: "transaction.auth.qualified" } }),
        200,
      );
      programId = fired.resources.programId;
      expect(fired.deliveries).toMatchObject([{ status: "succeeded" }]);
      await waitFor(() => stdout.includes(`transaction.auth.qualified ${fired.eventIds[0]}`), "the event's line");
    } finally {
      child.kill("SIGINT");
      await exited;
    }
    expect((await expectStatus<{ count: number }>(await s.h.request("GET", `/v1/programs/${programId}/hooks`, { headers: inSandbox }), 200)).count).toBe(0);
    expect((await expectStatus<{ count: number }>(await account.as("test").get("/v1/programs"), 200)).count).toBe(0);
  });
});
