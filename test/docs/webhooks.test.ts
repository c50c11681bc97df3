// docs/webhooks.md's Python and Go receivers, as written there, against real signed deliveries: each gets a
// hook on the fixtures program, verifies the delivery of a transaction.auth.qualified that POST /v1/trigger
// fires through the simulators, the qualifier and the dispatcher (answering 204, printing the event), and
// refuses a delivery whose body was changed after signing (400).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createWebApp } from "../../src/app/http.ts";
import { ADMIN_TOKEN } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { ROOT, background, cleanEnv, run, succeed, type Background } from "../support/pack.ts";
import { freePort } from "../support/server-process.ts";

const page = readFileSync(join(ROOT, "docs/webhooks.md"), "utf8");
const block = (lang: string) => {
  const found = [...page.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))];
  expect(found).toHaveLength(1);
  return found[0]![1]!;
};

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"]);
let server: ServerType;
let base: string;
let key: string;
let programId: string;
let work: string;
const receivers: Background[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cardlink-receivers-"));
  const app = createWebApp(pipeline.h.services, { adminToken: ADMIN_TOKEN });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve(info.port));
  });
  base = `http://127.0.0.1:${port}`;
  key = (await pipeline.h.createAccount()).keys.test;
  programId = ((await api("POST", "/v1/trigger/fixtures", {})) as { programId: string }).programId;
}, 120_000);

afterAll(async () => {
  for (const r of receivers) r.stop();
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "Cardlink-Key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

interface Fired {
  eventIds: string[];
  deliveries: { hookId: string; status: string; responseCode: number | null }[];
}

/** Starts a receiver for a new hook, fires the event at it and checks what it made of it. */
async function verifiesARealDelivery(start: (env: NodeJS.ProcessEnv) => Background) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/webhooks`;
  const hook = (await api("POST", `/v1/programs/${programId}/hooks`, { event: "transaction.auth.qualified", url })) as { id: string; secret: string };
  const receiver = start(cleanEnv({ WEBHOOK_SECRET: hook.secret, PORT: String(port) }));
  receivers.push(receiver);
  try {
    await receiver.waitFor(new RegExp(`^listening on ${port}$`, "m"));
    const fired = (await api("POST", "/v1/trigger", { event: "transaction.auth.qualified", programId })) as Fired;
    expect(fired.deliveries.find((d) => d.hookId === hook.id)).toMatchObject({ status: "succeeded", responseCode: 204 });
    await receiver.waitFor(new RegExp(`^verified transaction\\.auth\\.qualified ${fired.eventIds[0]}$`, "m"));

    // Signed with the hook's secret, then changed: the receiver must refuse it.
    const id = "msg_forged";
    const at = new Date();
    const signed = JSON.stringify({ id, event: "transaction.auth.qualified", created: at.toISOString(), data: { amount: 1 } });
    const forged = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(hook.secret).sign(id, at, signed) },
      body: signed.replace('"amount":1', '"amount":1000'),
    });
    expect(forged.status).toBe(400);
    expect(receiver.output()).not.toContain("msg_forged");
  } finally {
    receiver.stop();
    await api("DELETE", `/v1/hooks/${hook.id}`);
  }
}

it("runs the Python receiver (standardwebhooks from PyPI): it verifies a real delivery and refuses a changed one", async () => {
  const python = (await succeed(run(join(ROOT, "scripts/webhook-receivers"), ["python"], { cwd: ROOT, timeoutMs: 300_000 }), "scripts/webhook-receivers python")).trim().split("\n").at(-1)!;
  const file = join(work, "receiver.py");
  writeFileSync(file, block("python"));
  await verifiesARealDelivery((env) => background(python, [file], { cwd: work, env }));
}, 400_000);

it("runs the Go receiver (standard-webhooks/libraries/go from the module proxy): it verifies a real delivery and refuses a changed one", async () => {
  const dir = join(work, "go-receiver");
  mkdirSync(dir);
  for (const file of ["go.mod", "go.sum"]) copyFileSync(join(ROOT, "scripts/webhook-receivers.d", file), join(dir, file));
  writeFileSync(join(dir, "main.go"), block("go"));
  await succeed(run("go", ["build", "-o", "receiver", "."], { cwd: dir, timeoutMs: 300_000 }), "go build");
  await verifiesARealDelivery((env) => background(join(dir, "receiver"), [], { cwd: dir, env }));
}, 400_000);
