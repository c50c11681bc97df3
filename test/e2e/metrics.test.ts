// What an operator scrapes: `npm start`'s one process serves its Prometheus metrics at /metrics on the API's
// port and on HEALTH_PORT, and a test purchase driven through it to its delivered webhook moves the request
// counters, every hop's histogram (api, simulator, qualifier, dispatcher), the bus's batch and lag figures
// and the delivered count. (One role per process on Kafka and PostgreSQL: test/e2e/roles.test.ts.)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hopFigures } from "../../src/platform/metrics/index.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { sample } from "../support/metrics.ts";
import { freePort, startServer, type ServerProcess } from "../support/server-process.ts";

describe("metrics of npm start's one process", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardlink-metrics-"));
  let server: ServerProcess;
  let healthPort: number;
  let receiver: Receiver;
  let key: Record<string, string>;

  const scrape = async (url: string) => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    return res.text();
  };
  const call = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(server.url + path, {
      method,
      headers: { ...key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    healthPort = await freePort();
    server = await startServer({ DATA_DIR: dir, HEALTH_PORT: String(healthPort) });
    const credentials = JSON.parse(readFileSync(join(dir, "credentials.json"), "utf8")) as { demo: { test: string } };
    key = { "Cardlink-Key": credentials.demo.test };
    receiver = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGINT");
      await server.exited;
    }
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("moves the request counters, each hop's histogram, the bus's figures and the deliveries with a purchase", { timeout: 90_000 }, async () => {
    const fixtures = (await call<{ programId: string; locationId: string; cardId: string }>("POST", "/v1/trigger/fixtures", {})).body;
    await call("POST", `/v1/programs/${fixtures.programId}/hooks`, { event: "transaction.auth", url: receiver.url });
    const before = await scrape(server.url);
    expect(hopFigures(before)).toEqual({});

    const sent = await call<{ id: string }>("POST", "/v1/transactions/test", { cardId: fixtures.cardId, locationId: fixtures.locationId, amount: 42 });
    expect(sent.status).toBe(201);
    const deadline = Date.now() + 60_000;
    const delivered = () => receiver.received.some((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id === sent.body.id);
    while (!delivered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(delivered()).toBe(true);
    // The dispatcher counts the attempt once its answer is back: a moment after the receiver has it.
    let after = await scrape(server.url);
    while (sample(after, "cardlink_webhook_deliveries_total", { outcome: "delivered" }) < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrape(server.url);
    }

    const route = { method: "POST", route: "/v1/transactions/test", status: "201" };
    expect(sample(after, "cardlink_http_requests_total", route)).toBe(1);
    expect(sample(after, "cardlink_http_request_duration_seconds_count", route)).toBe(1);
    expect(sample(after, "cardlink_http_requests_total", { method: "POST", route: "/v1/programs/:programId/hooks", status: "201" })).toBe(1);
    // One purchase, one hop each: the two networks that read the command and drop it time nothing.
    const hops = hopFigures(after);
    for (const hop of ["api", "simulator", "qualifier", "dispatcher"] as const) {
      expect(hops[hop]?.count, `${hop}: ${JSON.stringify(hops)}`).toBe(1);
      expect(hops[hop]!.p99Ms).toBeLessThan(60_000);
    }
    // The fixtures card is a Visa card: its auth is on visa.transactions, which the qualifier group consumes.
    const qualifier = { group: "qualifier", topic: "visa.transactions" };
    expect(sample(after, "cardlink_bus_batch_size_count", qualifier)).toBeGreaterThanOrEqual(1);
    expect(sample(after, "cardlink_bus_batch_duration_seconds_count", qualifier)).toBeGreaterThanOrEqual(1);
    expect(sample(after, "cardlink_bus_handler_batch_size_count", { group: "qualifier" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "cardlink_bus_message_latency_seconds_count", qualifier)).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(/^cardlink_bus_consumer_lag\{group="qualifier",topic="visa.transactions",partition="\d+"\} 0$/m);
    expect(sample(after, "cardlink_bus_batch_size_count", { group: "simulator-visa", topic: "simulator.commands.visa" })).toBeGreaterThanOrEqual(1);
    expect(sample(after, "cardlink_webhook_deliveries_total", { outcome: "delivered" })).toBeGreaterThanOrEqual(1);
    // Every statement the process sent, its simulators' among them: the purchase cost some.
    expect(sample(after, "cardlink_db_statements_total")).toBeGreaterThan(sample(before, "cardlink_db_statements_total"));
    // The process's own figures, for the memory and CPU a run takes.
    expect(sample(after, "cardlink_process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  it("labels a path no route answers `unmatched`, and serves the same registry on HEALTH_PORT", async () => {
    expect((await fetch(`${server.url}/v1/no-such-thing/${crypto.randomUUID()}`, { headers: key })).status).toBe(404);
    const api = await scrape(server.url);
    expect(sample(api, "cardlink_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(api).not.toContain("no-such-thing");
    const health = await scrape(`http://127.0.0.1:${healthPort}`);
    expect(sample(health, "cardlink_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(
      sample(api, "cardlink_http_requests_total", { method: "GET", route: "unmatched", status: "404" }),
    );
    expect(hopFigures(health)).toEqual(hopFigures(api));
  });
});
