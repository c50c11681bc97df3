// Per-endpoint isolation: dead endpoints (accept the connection, never answer) and slow ones beside a
// healthy one. The healthy one gets every delivery while the dead ones still hang, and each dead one
// holds one connection, not a share of the pool. The dead ones are raw TCP servers that never read the
// request (the shared receiver always reads it); the slow ones are the shared receiver answering late.
import { createServer as createTcpServer, type Socket } from "node:net";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createHarness, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { createDispatcher, type Dispatcher } from "../../src/dispatcher/dispatcher.ts";
import { enqueueEvent } from "../../src/platform/outbox.ts";
import { receiveWebhooks } from "../../src/cli/webhook-receiver.ts";

let h: Harness;
let healthy: Receiver;
let dispatcher: Dispatcher;
const sockets: Socket[] = [];
const blackHole = createTcpServer((socket) => void sockets.push(socket));
let slow: Server;
const urlOf = (server: { address(): unknown }) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

beforeAll(async () => {
  h = await createHarness();
  healthy = await startReceiver();
  await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
  slow = await receiveWebhooks({ port: 0, host: "127.0.0.1", onDelivery: () => new Promise((resolve) => setTimeout(() => resolve(200), 5_000)) });
  // A small pool, so that without per-endpoint bounds the dead endpoints would fill it many times over.
  dispatcher = createDispatcher({
    db: h.services.db,
    clock: h.services.clock,
    log: h.services.log,
    concurrency: 16,
    endpointConcurrency: 4,
    timeoutMs: 120_000,
    drainMs: 100,
  });
});
afterAll(async () => {
  await dispatcher.stop();
  for (const s of sockets) s.destroy();
  slow.closeAllConnections();
  await new Promise((resolve) => blackHole.close(resolve));
  await new Promise((resolve) => slow.close(resolve));
  await healthy.close();
  await h.close();
});

async function hooks(acct: TestAccount, urls: string[]): Promise<{ programId: string; hookIds: string[] }> {
  const program = await expectStatus<{ id: string }>(await acct.as("test").post("/v1/programs", { name: "P" }), 201);
  const hookIds: string[] = [];
  for (const url of urls) {
    const hook = await expectStatus<{ id: string }>(await acct.as("test").post(`/v1/programs/${program.id}/hooks`, { event: "transaction.auth", url }), 201);
    hookIds.push(hook.id);
  }
  return { programId: program.id, hookIds };
}

it("delivers everything to a healthy endpoint while dead and slow endpoints of another account hang", async () => {
  const b = await h.createAccount();
  const dead = await hooks(b, Array.from({ length: 10 }, () => urlOf(blackHole)));
  const slowOnes = await hooks(b, Array.from({ length: 4 }, () => urlOf(slow)));
  const a = await h.createAccount();
  const good = await hooks(a, [healthy.url]);
  const now = () => h.services.clock.now();
  // Account B's events first: 8 for each of its 14 hooks' programs, so they are the oldest due work.
  for (let i = 0; i < 8; i++) {
    await enqueueEvent(h.services.db, { accountId: b.id, live: false, programId: dead.programId, event: "transaction.auth", data: { i } }, now());
    await enqueueEvent(h.services.db, { accountId: b.id, live: false, programId: slowOnes.programId, event: "transaction.auth", data: { i } }, now());
  }
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    ids.push(await enqueueEvent(h.services.db, { accountId: a.id, live: false, programId: good.programId, event: "transaction.auth", data: { i } }, now()));
  }
  dispatcher.start();

  const deadline = Date.now() + 25_000;
  const attemptsOf = async (hookIds: string[]) =>
    (
      await h.services.db.query<{ status: string; attempts: number }>(
        "select status, attempts from webhook_deliveries where hook_id = any($1::uuid[])",
        [hookIds],
      )
    );
  for (;;) {
    const mine = await attemptsOf(good.hookIds);
    if (mine.length === ids.length && mine.every((d) => d.status === "succeeded")) break;
    if (Date.now() > deadline) throw new Error(`healthy endpoint starved: ${mine.filter((d) => d.status === "succeeded").length} of ${ids.length} delivered`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Every one of A's events arrived, once, while not one dead delivery has come back.
  expect(healthy.received.map((r) => r.headers["webhook-id"]).sort()).toEqual([...ids].sort());
  expect((await attemptsOf(dead.hookIds)).every((d) => d.attempts === 0)).toBe(true);
  // A dead endpoint holds one connection: it is new, then suspect, never given its per-endpoint four.
  expect(sockets.length).toBeLessThanOrEqual(dead.hookIds.length);
});
