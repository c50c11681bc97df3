// `cardlink trigger` as a process against a running Cardlink: overrides reach the purchase, --json prints
// one JSON object and nothing else, a sandbox's key (or the account's with --sandbox) fires in the sandbox,
// a bad option is one line, exit 64, no stack trace, and --behaviour makes the networks' other behaviours.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus } from "../../support/harness.ts";
import { runCli, useServed } from "../../support/served.ts";

const served = useServed();

describe("cardlink trigger", () => {
  it("prints one JSON object with --json: event ids, the ids, the transaction as recorded and the deliveries", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const result = await runCli(
      ["trigger", "transaction.auth.qualified", "--json", "--scheme", "amex", "--amount", "30", "--targeting", "new", "--url", s.url, "--key", account.keys.test],
    );
    expect(result.stderr).toBe("");
    // No hook listens on this account's fixtures: no delivery, none failed, exit 0.
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const answer = JSON.parse(lines[0]!) as { eventIds: string[]; resources: Record<string, string>; transaction: Record<string, unknown>; deliveries: unknown[] };
    expect(answer.eventIds).toHaveLength(1);
    expect(Object.keys(answer.resources)).toEqual(expect.arrayContaining(["programId", "brandId", "locationId", "cardId", "offerId", "transactionId"]));
    expect(answer.transaction).toMatchObject({ id: answer.resources.transactionId, amount: 30, targetingTag: "new", card: { scheme: "amex" } });
    expect(answer.deliveries).toEqual([]);

    const human = await runCli(["trigger", "transaction.auth", "--amount", "2", "--url", s.url, "--key", account.keys.test]);
    expect(human.stdout).toMatch(/^transaction\.auth [0-9a-f-]{36}\n {2}purchase 2 GBP, not qualified: /);
    expect(human.stdout).toContain(`export PROGRAM=${answer.resources.programId}`);
  });

  it("fires Fidel's events: a failed card with --scheme, and a test program's sync (syncing, then idle), with their ids to export", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const failed = await runCli(["trigger", "card.failed", "--json", "--scheme", "mastercard", "--url", s.url, "--key", account.keys.test]);
    expect(failed).toMatchObject({ status: 0, stderr: "" });
    const answer = JSON.parse(failed.stdout) as { eventIds: string[]; summary: string; resources: Record<string, string> };
    expect(answer.eventIds).toHaveLength(1);
    expect(answer.summary).toMatch(/^card \S+ \(mastercard 5916\) failed: issuer_declined$/);
    const card = await expectStatus<{ status: string; failure: { reason: string } }>(await account.as("test").get(`/v1/cards/${answer.resources.newCardId}`), 200);
    expect(card).toMatchObject({ status: "failed", failure: { reason: "issuer_declined" } });

    const synced = await runCli(["trigger", "program.status", "--url", s.url, "--key", account.keys.test]);
    expect(synced.stdout).toMatch(/^program\.status [0-9a-f-]{36}\nprogram\.status [0-9a-f-]{36}\n {2}program \S+ synced 1 location\(s\): syncing, then idle\n/);
    expect(synced.stdout).toContain(`export PROGRAM=${answer.resources.programId}`);
  });

  it("fires in a sandbox with its key, or with the account's and --sandbox: the purchase is the sandbox's alone", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const sandbox = await expectStatus<{ id: string; keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "trigger" }), 201);
    const fire = async (...args: string[]) => {
      const result = await runCli(["trigger", "transaction.auth.qualified", "--json", "--url", s.url, ...args]);
      expect(result).toMatchObject({ status: 0, stderr: "" });
      return JSON.parse(result.stdout) as { resources: Record<string, string>; transaction: { offer: { qualified: boolean } } };
    };
    const viaHeader = await fire("--key", account.keys.test, "--sandbox", sandbox.id);
    const viaKey = await fire("--key", sandbox.keys.test);
    expect(viaKey.resources.programId).toBe(viaHeader.resources.programId);
    for (const fired of [viaHeader, viaKey]) {
      expect(fired.transaction.offer.qualified).toBe(true);
      const path = `/v1/transactions/${fired.resources.transactionId}`;
      await expectStatus(await s.h.request("GET", path, { headers: { "Cardlink-Key": sandbox.keys.test } }), 200);
      await expectError(await account.as("test").get(path), 404, "resource_not_found");
    }
  });

  it("refuses a bad option in one line, exit 64, without a stack trace", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const cases: [string[], RegExp][] = [
      [["--scheme", "discover"], /^--scheme: must be visa, mastercard, amex\n$/],
      [["--amount", "twelve"], /^--amount: must be a number greater than 0, such as 12.50\n$/],
      [["--amount", "-3"], /^trigger: Option '--amount' argument is ambiguous\. [^\n]*\(cardlink help lists the options\)\n$/],
      [["--card", "abc"], /^--card: must be a card id \(UUID\)\n$/],
      [["--frobnicate"], /^trigger: Unknown option '--frobnicate'.*\(cardlink help lists the options\)\n$/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(["trigger", "transaction.auth", ...args, "--url", s.url, "--key", account.keys.test]);
      expect(result.status).toBe(64);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(message);
    }
    // Refused by the service: its message, one line, exit 1.
    const refused = await runCli(["trigger", "offer.extended", "--scheme", "visa", "--url", s.url, "--key", account.keys.test]);
    expect(refused).toMatchObject({ status: 1, stdout: "", stderr: "400 invalid_request: scheme: does not apply to offer.extended\n" });
  });

  it("fires the networks' behaviours: an authorisation's expiry, a clearing with no authorisation, with a tip, sent twice, after an increment", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    // The fixtures once, then the triggers side by side.
    await expectStatus(await account.as("test").post("/v1/trigger/fixtures"), 200);
    type Fired = { summary: string; resources: Record<string, string>; transaction: Record<string, unknown> & { offer: { cashback: number; qualified: boolean } } };
    const fire = async (event: string, ...args: string[]) => {
      const result = await runCli(["trigger", event, "--json", ...args, "--url", s.url, "--key", account.keys.test]);
      expect(result).toMatchObject({ status: 0, stderr: "" });
      return JSON.parse(result.stdout) as Fired;
    };
    const [expired, offline, tip, twice, incremented] = await Promise.all([
      fire("transaction.auth.expired", "--behaviour", "converted"),
      fire("transaction.clearing.qualified", "--behaviour", "without-auth", "--scheme", "amex"),
      fire("transaction.clearing.qualified", "--behaviour", "tip", "--scheme", "mastercard"),
      fire("transaction.clearing", "--behaviour", "duplicate-clearing"),
      fire("transaction.clearing.qualified", "--behaviour", "incremented", "--amount", "50"),
    ]);
    // 10% of 42.00 GBP was announced, then withdrawn with the authorisation; billed in USD, the purchase keeps its GBP.
    expect(expired.transaction).toMatchObject({ expired: true, amount: 42, currency: "GBP", offer: { qualified: false, cashback: 0 } });
    expect(expired.summary).toMatch(/billed to the cardholder in another currency expired uncleared/);
    expect(offline.transaction).toMatchObject({ auth: false, cleared: true, authTransactionId: null, card: { scheme: "amex" }, offer: { qualified: true, cashback: 4.2 } });
    expect(offline.resources.purchaseId).toBeUndefined();
    expect(tip.transaction).toMatchObject({ authTransactionId: tip.resources.purchaseId, amount: 48.3, offer: { cashback: 4.83 } });
    expect(twice.transaction).toMatchObject({ id: twice.resources.purchaseId, cleared: true, amount: 42 });
    expect(incremented.transaction).toMatchObject({ id: incremented.resources.purchaseId, cleared: true, amount: 60, offer: { cashback: 6 } });
    expect(await expectError(await account.as("test").post("/v1/trigger", { event: "transaction.auth", behaviour: "tip" }), 400, "invalid_request")).toBe(
      "behaviour: tip is a clearing's: it applies to transaction.clearing and transaction.clearing.qualified",
    );
  });
});
