// A small graph of resources for one account and environment: every path parameter an API route
// takes maps to a record of that graph, so route-wide rules (auth, 404s) can be generated once.
import { randomUUID } from "node:crypto";
import { expectStatus, type Client, type Harness } from "./harness.ts";

export type Graph = Record<string, string>;

/** Luhn-valid card numbers each environment accepts (live keys refuse the test numbers). */
export const CARD_NUMBERS = { test: "4444000000004008", live: "4000123456789017" } as const;

/**
 * Creates one of each resource and returns the id for each path parameter name. `h` approves the
 * brand's consent through the admin API, which a live brand needs before it can have locations.
 */
export async function seedGraph(client: Client, h: Pick<Harness, "admin">): Promise<Graph> {
  const programCreated = await client.post("/v1/programs", { name: "Graph program" });
  // The request log names a request by the Request-Id of its answer.
  const requestLogId = programCreated.headers.get("Request-Id")!;
  const program = await expectStatus<{ id: string; live: boolean }>(programCreated, 201);
  const brand = await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Graph brand" }), 201);
  await expectStatus(await h.admin("POST", `/admin/brands/${brand.id}/consent`, { decision: "approved" }), 200);
  const location = await expectStatus<{ id: string }>(
    await client.post(`/v1/programs/${program.id}/locations`, {
      address: "1 Graph Street",
      brandId: brand.id,
      city: "London",
      countryCode: "GBR",
      postcode: "EC1A 1BB",
    }),
    201,
  );
  const card = await expectStatus<{ id: string }>(
    await client.post(`/v1/programs/${program.id}/cards`, {
      number: program.live ? CARD_NUMBERS.live : CARD_NUMBERS.test,
      expMonth: 12,
      expYear: 2030,
      countryCode: "GBR",
      termsOfUse: true,
    }),
    201,
  );
  const hook = await expectStatus<{ id: string }>(
    await client.post(`/v1/programs/${program.id}/hooks`, { event: "location.status", url: "http://127.0.0.1:9/hook" }),
    201,
  );
  // An offer adopted from the marketplace: the brand of the same name is the graph brand, so its location is linked.
  const marketplaceOffer = await expectStatus<{ id: string }>(
    await h.admin("POST", "/admin/marketplace-offers", {
      name: "Graph offer",
      brandName: "Graph brand",
      countryCode: "GBR",
      startDate: "2026-01-01T00:00:00",
      type: { name: "amount", value: 5 },
      supplier: { id: "cp_graph", type: "affiliate", name: "Graph Rewards" },
    }),
    201,
  );
  const offer = await expectStatus<{ id: string }>(
    await client.post(`/v1/marketplace-offers/${marketplaceOffer.id}/programs/${program.id}`),
    201,
  );
  // A transaction the publisher reports for an oaas offer: the one kind a live key can create itself.
  const account = await expectStatus<{ id: string }>(await client.get("/v1/account"), 200);
  const oaas = await expectStatus<{ id: string }>(
    await client.post("/v1/offers", {
      brandId: brand.id,
      countryCode: "GBR",
      name: "Graph oaas offer",
      publisherId: account.id,
      startDate: "2026-01-01T00:00:00",
      type: { name: "amount", value: 1 },
      transactionSource: "oaas",
    }),
    201,
  );
  const transaction = await expectStatus<{ id: string }>(
    await client.post(`/v1/offers/${oaas.id}/transactions`, { cardId: card.id, amount: 10, datetime: "2026-01-05T10:00:00", reference: "graph-1" }),
    201,
  );
  // Test: amount 10.01 fails at once; live: pending, the transaction being under 4 days old.
  const request = await expectStatus<{ id: string }>(
    await client.post(`/v1/cards/${card.id}/missing-transaction-requests`, { locationId: location.id, transactionDate: "2026-01-04", amount: 10.01 }),
    201,
  );
  // A sandbox of the account: sandboxes are the account's, in no one environment.
  const sandbox = await expectStatus<{ id: string }>(await client.post("/v1/sandboxes", { name: `graph-${randomUUID()}` }), 201);
  return {
    sandboxId: sandbox.id,
    programId: program.id,
    brandId: brand.id,
    locationId: location.id,
    cardId: card.id,
    hookId: hook.id,
    offerId: offer.id,
    transactionId: transaction.id,
    requestId: request.id,
    requestLogId,
  };
}
