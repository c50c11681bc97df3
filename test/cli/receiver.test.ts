import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { listen, summarise } from "../../src/cli/receiver.ts";
import { signedHeaders } from "../../src/dispatcher/sign.ts";

const SECRET = `whsec_${Buffer.from("a".repeat(32)).toString("base64")}`;
const OTHER = `whsec_${Buffer.from("b".repeat(32)).toString("base64")}`;
let server: Server;
const lines: string[] = [];

beforeAll(async () => {
  server = await listen({ port: 0, secrets: () => [OTHER, SECRET], out: (l) => lines.push(l), format: "body" });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const post = (secret: string, body: string) =>
  fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, { method: "POST", headers: signedHeaders(secret, "evt_1", body), body });

describe("cardlink listen", () => {
  it("prints a delivery signed with any of its secrets and answers 204", async () => {
    const body = JSON.stringify({ id: "evt_1", event: "transaction.auth", created: "2026-01-05T12:00:00.000Z", data: {} });
    expect((await post(SECRET, body)).status).toBe(204);
    expect(lines.at(-1)).toBe(`verified transaction.auth evt_1 ${body}`);
  });
  it("answers other methods without printing them", async () => {
    const before = lines.length;
    expect((await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).status).toBe(200);
    expect(lines.length).toBe(before);
  });
  it("rejects a delivery no secret verifies with 401", async () => {
    const stranger = `whsec_${Buffer.from("c".repeat(32)).toString("base64")}`;
    expect((await post(stranger, "{}")).status).toBe(401);
    expect(lines.at(-1)).toMatch(/^REJECTED/);
  });
});

describe("cardlink listen, one line per event and --forward-to", () => {
  it("prints a summary line and forwards the signed request unchanged, answering with the forward's answer", async () => {
    const { startReceiver } = await import("../support/receiver.ts");
    const target = await startReceiver();
    target.respondWith(202);
    const out: string[] = [];
    const forwarding = await listen({ port: 0, secrets: () => [SECRET], out: (l) => out.push(l), format: "summary", forwardTo: target.url });
    try {
      const body = JSON.stringify({
        id: "evt_2",
        event: "transaction.auth.qualified",
        created: "2026-01-05T12:00:00.000Z",
        data: { type: "purchase", amount: 42, currency: "GBP", brand: { name: "Coffee House" }, offer: { qualified: true, cashback: 4.2, message: [] } },
      });
      const headers = signedHeaders(SECRET, "evt_2", body);
      const res = await fetch(`http://127.0.0.1:${(forwarding.address() as AddressInfo).port}/`, { method: "POST", headers, body });
      expect(res.status).toBe(202);
      const [got] = await target.waitFor(1);
      expect(got!.body).toBe(body);
      for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) expect(got!.headers[name]).toBe(headers[name]);
      expect(out[0]).toBe("transaction.auth.qualified evt_2 purchase 42 GBP at Coffee House: qualified, cashback 4.2 GBP");
      expect(out[1]).toMatch(new RegExp(`^  -> ${target.url} answered 202 in \\d+ ms$`));
    } finally {
      await new Promise<void>((r) => forwarding.close(() => r()));
      await target.close();
    }
  });
});

describe("the listener's one line per event", () => {
  it("says which hook was disabled and why for hook.disabled", () => {
    const line = summarise({
      event: "hook.disabled",
      data: { id: "h1", event: "transaction.auth", url: "http://127.0.0.1:4000/hooks", disabledReason: "the endpoint answered 410 Gone at 2026-01-05T12:00:00Z" },
    } as unknown as Parameters<typeof summarise>[0]);
    expect(line).toBe("hook h1 (transaction.auth at http://127.0.0.1:4000/hooks) disabled: the endpoint answered 410 Gone at 2026-01-05T12:00:00Z");
  });

  it("says what Fidel's events report: a brand's consent, a card's enrolment, a program's sync, a marketplace offer", () => {
    const line = (event: string, data: Record<string, unknown>) => summarise({ event, data } as unknown as Parameters<typeof summarise>[0]);
    expect(line("brand.consent", { id: "b1", name: "Coffee House", consent: "approved" })).toBe('brand b1 "Coffee House" consent approved');
    expect(line("card.failed", { id: "c1", scheme: "visa", lastNumbers: "4917", status: "failed", failure: { reason: "issuer_declined" } })).toBe(
      "card c1 visa 4917 failed: issuer_declined",
    );
    expect(line("card.linked", { id: "c2", scheme: "amex", lastNumbers: "0306", status: "linked", failure: null })).toBe("card c2 amex 0306 linked");
    expect(line("program.status", { id: "p1", status: "idle", sync: { status: "completed", locations: 2 } })).toBe("program p1 idle, sync completed (2 locations)");
    expect(line("marketplace.offer.live", { id: "o1", name: "5% back", status: "live", endDate: "2027-01-05T00:00:00" })).toBe(
      'marketplace offer o1 "5% back" live until 2027-01-05T00:00:00',
    );
  });
});
