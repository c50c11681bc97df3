// The lifecycle workers' side of the bus: malformed network replies are dead-lettered with the field
// named; an answer applies once (a redelivered or late one changes nothing, an unknown one is ignored).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { LookupReply, OnboardingReply } from "../../src/platform/bus/messages.ts";
import { deadLetterTopic } from "../../src/platform/bus/dead-letter.ts";
import { TOPICS } from "../../src/platform/bus/topics.ts";
import { answerOnboarding } from "../../src/services/mid-insights/onboarding.ts";
import { applyLookupReply } from "../../src/services/missing-transactions/requests.ts";
import { expectStatus } from "../support/harness.ts";
import { world } from "../support/offers-world.ts";
import { usePipeline } from "../support/pipeline.ts";
import { readTopic } from "../simulators/helpers.ts";

const pipeline = usePipeline(["workers"]);

const onboardingReply = (over: Partial<OnboardingReply> = {}): OnboardingReply => ({
  requestId: randomUUID(),
  scheme: "amex",
  locationId: randomUUID(),
  status: "ACTIVE",
  reason: null,
  mids: [{ vmid: null, vsid: null, visaAcquiringMid: null, visaBin: null, mcLocationId: null, mcAcquiringMid: null, seNumber: "1234567890", merchantName: "SHOP" }],
  respondedAt: "2026-01-10T12:00:00.000Z",
  ...over,
});

describe("network replies", () => {
  it("dead-letters a malformed reply, naming the field, and goes on", async () => {
    const { h } = pipeline;
    const onboarding = await readTopic<{ reason: string; failedBy: string }>(h, deadLetterTopic(TOPICS.onboardingReplies.name));
    const lookups = await readTopic<{ reason: string }>(h, deadLetterTopic(TOPICS.lookupReplies.name));
    await h.services.bus.publish(TOPICS.onboardingReplies.name, "k", onboardingReply({ respondedAt: "yesterday" }));
    const bad: LookupReply = {
      requestId: randomUUID(),
      scheme: "visa",
      cardId: "c",
      outcome: "SUCCEEDED",
      error: null,
      transactions: [
        {
          amount: 1,
          date: "2026-01-04",
          networkStatus: "SUCCEED",
          merchantName: "M",
          merchantCity: "C",
          matchScore: 150,
          type: null,
          transactionId: "t",
          vmid: null,
          vsid: null,
          visaStoreName: null,
          visaAcquiringMid: null,
          visaBin: null,
          mcLocationId: null,
          mcAcquiringMid: null,
          seNumber: null,
        },
      ],
      respondedAt: "2026-01-10T12:00:00.000Z",
    };
    await h.services.bus.publish(TOPICS.lookupReplies.name, "c", bad);
    expect((await onboarding.until(1))[0]).toMatchObject({ reason: "respondedAt: must be an ISO 8601 instant", failedBy: "lifecycle" });
    expect((await lookups.until(1))[0]!.reason).toBe("transactions.0.matchScore: must be 0 to 100");
  });

  it("applies an onboarding answer once: a redelivery or an unknown request changes nothing", async () => {
    const { h } = pipeline;
    const w = await world(h, "live");
    const location = await expectStatus<{ id: string }>(
      await w.client.post(`/v1/programs/${w.programId}/locations`, { address: "4 Quay Street", brandId: w.brandId, city: "Bristol", countryCode: "GBR", postcode: "BS1 4DB", status: "syncing" }),
      201,
    );
    const [network] = await h.services.db.query<{ request_id: string }>("select request_id from location_networks where location_id = $1 and scheme = 'amex'", [location.id]);
    const reply = onboardingReply({ requestId: network!.request_id, locationId: location.id });
    const now = h.services.clock.now();
    expect(await answerOnboarding(h.services.db, reply, now)).toBe("applied");
    expect(await answerOnboarding(h.services.db, reply, now)).toBe("stale");
    expect(await answerOnboarding(h.services.db, { ...reply, status: "NOT_FOUND", reason: "late", mids: [] }, now)).toBe("stale");
    expect(await answerOnboarding(h.services.db, onboardingReply(), now)).toBe("unknown");
    const events = await h.services.db.query<{ data: { scheme: string; status: string } }>(
      "select data from outbox where event = 'location.status' and data->'location'->>'id' = $1",
      [location.id],
    );
    expect(events.map((e) => [e.data.scheme, e.data.status])).toEqual([["amex", "location.active"]]);
    const got = await expectStatus<{ status: { amex: { status: string; mids: unknown[] } } }>(await w.client.get(`/v1/locations/${location.id}`), 200);
    expect(got.status.amex).toMatchObject({ status: "Active", mids: [{ seNumber: "1234567890" }] });
  });

  it("applies a look-up answer once", async () => {
    const { h } = pipeline;
    const w = await world(h, "live");
    const day = new Date(h.services.clock.now().getTime() - 6 * 86_400_000).toISOString().slice(0, 10);
    const request = await expectStatus<{ id: string; status: string }>(
      await w.client.post(`/v1/cards/${w.cardId}/missing-transaction-requests`, { locationId: w.locationId, transactionDate: day, amount: 3 }),
      201,
    );
    expect(request.status).toBe("processing");
    const reply: LookupReply = {
      requestId: request.id,
      scheme: "visa",
      cardId: w.cardId,
      outcome: "FAILED",
      error: { code: "card-not-found", message: "unknown card" },
      transactions: [],
      respondedAt: h.services.clock.now().toISOString(),
    };
    expect(await applyLookupReply(h.services.db, reply, h.services.clock.now())).toBe("applied");
    expect(await applyLookupReply(h.services.db, reply, h.services.clock.now())).toBe("stale");
    const events = await h.services.db.query<{ event: string }>("select event from outbox where data->>'id' = $1", [request.id]);
    expect(events.map((e) => e.event)).toEqual(["missing-transaction-request.failed"]);
    const got = await expectStatus<{ status: string; result: unknown }>(await w.client.get(`/v1/missing-transaction-requests/${request.id}`), 200);
    expect(got).toMatchObject({ status: "failed", result: { error: { code: "card-not-found" } } });
  });
});
