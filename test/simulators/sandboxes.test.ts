// The networks keep each sandbox's time: a sandbox's live sync and look-ups are answered on its own clock,
// its advance answers once the networks' answers are applied, and a deleted sandbox gets no answer more.
// On the embedded log and PGlite, and on Kafka and PostgreSQL when they are set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";
import type { OnboardingReply } from "../../src/platform/bus/messages.ts";
import { TOPICS } from "../../src/platform/bus/topics.ts";
import { createHarness, expectStatus, type Harness } from "../support/harness.ts";
import { haveInfra } from "../support/infra.ts";
import { readTopic } from "./helpers.ts";

const STACKS = [
  { name: "embedded log, PGlite", open: () => createHarness() },
  ...(haveInfra("kafkaBrokers", "databaseUrl") ? [{ name: "Kafka, PostgreSQL", open: () => createHarness({ bus: "kafka", engine: "postgres" }) }] : []),
];

describe.each(STACKS)("sandboxes at the networks ($name)", ({ open }) => {
  let h: Harness;
  let roles: RunningRoles;
  beforeAll(async () => {
    h = await open();
    roles = await startRoles(h.services, ["simulators", "workers"]);
  });
  afterAll(async () => {
    await roles?.stop();
    await h?.close();
  });

  /** A sandbox of a fresh account, with a live program and brand in it. */
  async function sandbox(name: string) {
    const account = await h.createAccount();
    const made = await expectStatus<{ id: string; keys: { test: string; live: string } }>(await account.as("test").post("/v1/sandboxes", { name }), 201);
    const client = h.clientWithKey(made.keys.live);
    const program = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: `${name} program` }), 201);
    const brand = await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: `${name} Coffee` }), 201);
    // In a sandbox its key plays the brand.
    await expectStatus(await client.post(`/v1/brands/${brand.id}/consent`, { decision: "approved" }), 200);
    return { id: made.id, account, client, programId: program.id, brandId: brand.id };
  }
  type Sandbox = Awaited<ReturnType<typeof sandbox>>;

  const addLocation = async (s: Sandbox) =>
    expectStatus<{ id: string }>(
      await s.client.post(`/v1/programs/${s.programId}/locations`, { address: "4 Quay Street", brandId: s.brandId, city: "Bristol", countryCode: "GBR", postcode: "BS1 4DB", status: "syncing" }),
      201,
    );
  /** The location's sync status at each network. */
  const statusOf = async (s: Sandbox, locationId: string) => {
    const location = await expectStatus<{ status: Record<string, { status: string }> }>(await s.client.get(`/v1/locations/${locationId}`), 200);
    return Object.fromEntries(Object.entries(location.status).map(([scheme, network]) => [scheme, network.status]));
  };
  const advance = (s: Sandbox, body: Record<string, number>) => s.client.post("/v1/clock/advance", body);
  /** Until the networks have the request (their answer is scheduled on the sandbox's clock). */
  const requested = async (locationId: string) => {
    for (;;) {
      const unsent = await h.services.db.query("select 1 from location_networks where location_id = $1 and request_sent is null", [locationId]);
      if (unsent.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("answers a sandbox's live sync on its own clock: two weeks of S make S's location Active, T's stays Syncing", async () => {
    const [s, t] = [await sandbox("s-sync"), await sandbox("t-sync")];
    const [inS, inT] = [await addLocation(s), await addLocation(t)];
    await Promise.all([requested(inS.id), requested(inT.id)]);
    await expectStatus(await advance(s, { days: 15 }), 200);
    // The advance answered once the networks' answers were applied: nothing to wait for here.
    expect(await statusOf(s, inS.id)).toEqual({ visa: "Active", mastercard: "Active", amex: "Active" });
    expect(await statusOf(t, inT.id)).toEqual({ visa: "Syncing", mastercard: "Syncing", amex: "Syncing" });
  });

  it("keeps a sandbox's missing transaction request pending four days of its time, then answers it within the advance", async () => {
    const s = await sandbox("s-missing");
    const location = await addLocation(s);
    const card = await expectStatus<{ id: string }>(
      await s.client.post(`/v1/programs/${s.programId}/cards`, { number: "4000123456789017", expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true }),
      201,
    );
    const created = await expectStatus<{ id: string; status: string }>(
      await s.client.post(`/v1/cards/${card.id}/missing-transaction-requests`, {
        locationId: location.id,
        amount: 12.5,
        transactionDate: "2026-01-05",
      }),
      201,
    );
    expect(created.status).toBe("pending");
    await expectStatus(await advance(s, { days: 3 }), 200);
    const read = async () => (await expectStatus<{ status: string }>(await s.client.get(`/v1/missing-transaction-requests/${created.id}`), 200)).status;
    expect(await read()).toBe("pending");
    // The service clock has not moved: only the sandbox's four days end the wait.
    await expectStatus(await advance(s, { days: 2 }), 200);
    expect(await read()).toBe("failed"); // the card made no purchase on the network: transaction-not-found
  });

  it("makes every network forget a deleted sandbox: no answer follows for it", async () => {
    const s = await sandbox("s-deleted");
    const location = await addLocation(s);
    await requested(location.id);
    const replies = await readTopic<OnboardingReply>(h, TOPICS.onboardingReplies.name);
    expect((await s.account.as("test").delete(`/v1/sandboxes/${s.id}`)).status).toBe(204);
    // Moving every clock by a month answers none of its requests (the networks would, had they not forgotten it).
    await h.services.clock.advance(31 * 86_400_000);
    const other = await sandbox("after-delete");
    await expectStatus(await advance(other, { days: 1 }), 200);
    expect(replies.values.filter((r) => r.locationId === location.id)).toEqual([]);
  });
});
