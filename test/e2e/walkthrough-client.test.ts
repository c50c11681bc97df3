// The walk-through driven by the typed client of clients/typescript over real HTTP: program, brand,
// location, card, offer, link, hook, a test purchase through the Visa simulator and the qualifier, and
// the signed webhook verified and typed by verifyWebhook at a real local receiver.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { createCardlinkClient, verifyWebhook, type CardlinkClient, type EventOf } from "../../clients/typescript/src/index.ts";
import { createWebApp } from "../../src/app/http.ts";
import { ADMIN_TOKEN, type TestAccount } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { localIn } from "../support/offers-world.ts";

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"]);
let server: ServerType;
let receiver: Receiver;
let acct: TestAccount;
let cardlink: CardlinkClient;

beforeAll(async () => {
  receiver = await startReceiver();
  const app = createWebApp(pipeline.h.services, { adminToken: ADMIN_TOKEN });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve(info.port));
  });
  acct = await pipeline.h.createAccount();
  cardlink = createCardlinkClient({ baseUrl: `http://127.0.0.1:${port}`, key: acct.keys.test });
});
afterAll(async () => {
  await receiver.close();
  await new Promise((resolve) => server.close(resolve));
});

/** The answer's data; fails the test with the API's error otherwise. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

it("walks from a program to a verified, typed transaction.auth.qualified webhook with the typed client", async () => {
  const program = ok(await cardlink.POST("/v1/programs", { body: { name: "Rewards UK" } }));
  const brand = ok(await cardlink.POST("/v1/brands", { body: { name: "Coffee House" } }));
  const location = ok(
    await cardlink.POST("/v1/programs/{programId}/locations", {
      params: { path: { programId: program.id } },
      body: { brandId: brand.id, address: "1 High Street", city: "London", postcode: "SW1A 1AA", countryCode: "GBR", mids: { visa: [{ vmid: "12345678", vsid: "87654321" }] } },
    }),
  );
  expect(location.status.visa.status).toBe("Active");
  const card = ok(
    await cardlink.POST("/v1/programs/{programId}/cards", {
      params: { path: { programId: program.id } },
      body: { number: "4444000000004008", expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true },
    }),
  );
  const offer = ok(
    await cardlink.POST("/v1/offers", {
      body: { brandId: brand.id, countryCode: "GBR", name: "10% off coffee", publisherId: acct.id, startDate: localIn(pipeline.h, -1), type: { name: "discount", value: 10 }, feeSplit: 1.5 },
    }),
  );
  expect(offer.status).toBe("requests");
  ok(await cardlink.POST("/v1/offers/{offerId}/locations/{locationId}", { params: { path: { offerId: offer.id, locationId: location.id } } }));
  const hook = ok(
    await cardlink.POST("/v1/programs/{programId}/hooks", {
      params: { path: { programId: program.id } },
      body: { event: "transaction.auth.qualified", url: receiver.url },
    }),
  );
  // A typed error: the API's {error: {code, message}}.
  const refused = await cardlink.POST("/v1/transactions/test", { body: { cardId: card.id, locationId: location.id, amount: -1 } });
  expect(refused.response.status).toBe(400);
  expect(refused.error?.error.message).toMatch(/^amount:/);

  const purchase = await cardlink.POST("/v1/transactions/test", { body: { cardId: card.id, locationId: location.id, amount: 12.5 } });
  expect(purchase.response.status).toBe(201);
  const [delivery] = await receiver.waitFor(1, 30_000);
  const event = verifyWebhook(hook.secret, delivery!.body, delivery!.headers);
  expect(event.event).toBe("transaction.auth.qualified");
  const qualified = event as EventOf<"transaction.auth.qualified">;
  expect(qualified.data.offer).toMatchObject({ id: offer.id, qualified: true, cashback: 1.25 });
  // metadata is the same value in the location record and in the transaction's copy of it.
  const again = ok(await cardlink.GET("/v1/locations/{locationId}", { params: { path: { locationId: location.id } } }));
  expect(qualified.data.location?.metadata).toEqual(again.metadata);
  expect(again.metadata).toEqual({});
  expect(() => verifyWebhook(hook.secret, delivery!.body.replace("12.5", "125"), delivery!.headers)).toThrow();
});
