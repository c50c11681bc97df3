// The request log's writer on real PostgreSQL: a round is one statement in the order given, a record
// PostgreSQL refuses is dropped alone (the rest of its round written), PostgreSQL away loses neither the
// process nor the caller (records wait in the bounded buffer; past it, and at a stop still without it, they
// are dropped and counted in /metrics), and a follower of the log never passes a record that a transaction
// begun earlier commits later.
import { describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../../src/platform/db.ts";
import { migrate } from "../../../src/platform/migrate.ts";
import { createLogger } from "../../../src/platform/log.ts";
import { configuredClock } from "../../../src/platform/clock/index.ts";
import { loadConfig } from "../../../src/platform/config/index.ts";
import { createMetrics } from "../../../src/platform/metrics/index.ts";
import { createHealth } from "../../../src/platform/health/index.ts";
import { createAccount } from "../../../src/services/accounts/index.ts";
import { createRequestLog, listRequests, type RequestEntry } from "../../../src/services/request-log/index.ts";
import { randomBase62 } from "../../../src/platform/ids.ts";
import { haveInfra, infra } from "../../support/infra.ts";

const config = loadConfig({ LOG_LEVEL: "silent", CLOCK_SPEED: "0", CLOCK_START: "2026-01-05T12:00:00Z" });
const log = createLogger(config);
const clock = configuredClock(config, 0);
const NOW = clock.now();

const entry = (accountId: string, keyId: string, path = "/v1/programs"): RequestEntry => ({
  id: `req_${randomBase62(16)}`,
  accountId,
  live: false,
  keyId,
  source: "api",
  method: "GET",
  path,
  query: null,
  status: 200,
  latencyMs: 1.25,
  idempotencyKey: null,
  created: NOW,
  request: null,
  response: { text: '{"items":[],"count":0}', cut: false },
});

const dropped = async (metrics: ReturnType<typeof createMetrics>, reason: string) =>
  Number(new RegExp(`cardlink_request_log_dropped_total\\{reason="${reason}"\\} (\\d+)`).exec((await metrics.expose()).body)?.[1]);

describe("the request log's writer with PostgreSQL away", () => {
  it("never fails the caller: records wait in the bounded buffer, the rest are dropped and counted, and a stop gives up", async () => {
    // Nothing listens on port 1: every connection is refused, as when PostgreSQL is down.
    const db = openPostgres("postgres://cardlink:cardlink@127.0.0.1:1/cardlink", { max: 1 });
    const metrics = createMetrics();
    const health = createHealth({ db, log });
    const requestLog = createRequestLog({ db, log, observer: metrics.requestLog, health, bufferLimit: 100 });
    try {
      const accountId = "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b";
      for (let i = 0; i < 150; i++) requestLog.add(entry(accountId, accountId));
      expect(await dropped(metrics, "overflow")).toBe(50);
      while (health.postgres.up) await new Promise((r) => setTimeout(r, 20));
      await requestLog.close();
      expect(await dropped(metrics, "stopped")).toBe(100);
      requestLog.add(entry(accountId, accountId));
      expect(await dropped(metrics, "stopped")).toBe(101);
    } finally {
      health.stop();
      await db.close();
    }
  });
});

describe.skipIf(!haveInfra("databaseUrl"))("the request log's writer on PostgreSQL", () => {
  const open = async (): Promise<Db> => {
    const db = openPostgres(infra.databaseUrl!, { max: 3 });
    await migrate(db);
    return db;
  };

  it("writes a round in order and drops alone the record PostgreSQL refuses", async () => {
    const db = await open();
    const metrics = createMetrics();
    const health = createHealth({ db, log });
    const requestLog = createRequestLog({ db, log, observer: metrics.requestLog, health, bufferLimit: 100 });
    try {
      const account = await createAccount(db, { name: "Writer", tier: "standard" }, NOW);
      const keyId = account.id;
      const entries = [entry(account.id, keyId, "/v1/a"), { ...entry(account.id, keyId, "/v1/b"), keyId: "not-a-key-id" }, entry(account.id, keyId, "/v1/c")];
      for (const e of entries) requestLog.add(e);
      await requestLog.flush();
      const page = await listRequests({ db, clock, accountId: account.id, live: false }, {}, { limit: 10, order: "asc" });
      expect(page.items.map((r) => [r.path, r.latencyMs])).toEqual([
        ["/v1/a", 1.3],
        ["/v1/c", 1.3],
      ]);
      expect(await dropped(metrics, "refused")).toBe(1);
    } finally {
      await requestLog.close();
      health.stop();
      await db.close();
    }
  });

  it("lets a follower read no record past one a running transaction may still commit before it", async () => {
    const db = await open();
    const health = createHealth({ db, log });
    const requestLog = createRequestLog({ db, log, observer: createMetrics().requestLog, health, bufferLimit: 100 });
    try {
      const account = await createAccount(db, { name: "Follower", tier: "standard" }, NOW);
      const ctx = { db, clock, accountId: account.id, live: false };
      const first = entry(account.id, account.id, "/v1/first");
      requestLog.add(first);
      await requestLog.flush();
      let commit: () => void = () => {};
      const held = new Promise<void>((resolve) => (commit = resolve));
      // A transaction that has written (it has an id) and stays open, as another process's round in flight.
      let begun: () => void = () => {};
      const open = new Promise<void>((resolve) => (begun = resolve));
      const running = db.tx(async (tx) => {
        await tx.query("select pg_current_xact_id()");
        begun();
        await held;
      });
      await open;
      const second = entry(account.id, account.id, "/v1/second");
      requestLog.add(second);
      await requestLog.flush();
      expect((await listRequests(ctx, { after: first.id }, { limit: 10, order: "asc" })).items).toEqual([]);
      commit();
      await running;
      // Other suites' transactions on the shared database may hold the horizon a moment longer.
      let page = await listRequests(ctx, { after: first.id }, { limit: 10, order: "asc" });
      for (let i = 0; i < 200 && page.items.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        page = await listRequests(ctx, { after: first.id }, { limit: 10, order: "asc" });
      }
      expect(page.items.map((r) => r.id)).toEqual([second.id]);
    } finally {
      await requestLog.close();
      health.stop();
      await db.close();
    }
  });
});
