// Shared set-up of the offer API tests: an account with a program, a brand, a location and a card, and
// a helper that creates offers of that brand. Dates are computed from the service clock, which tests advance.
import { expect } from "vitest";
import { localAt } from "../../src/domain/local-dates.ts";
import { CARD_NUMBERS } from "./fixtures.ts";
import { expectError, expectStatus, type Client, type Harness, type TestAccount } from "./harness.ts";

export type Offer = Record<string, unknown> & {
  id: string;
  status: string;
  locationsTotal: number;
  endDate: string;
  startDate: string;
  activation: { enabled: boolean; qualifiedTransactionsLimit?: number };
  marketplace: { offerId: string; programId: string | null; approval: string } | null;
};

export interface World {
  acct: TestAccount;
  client: Client;
  env: "test" | "live";
  programId: string;
  brandId: string;
  locationId: string;
  cardId: string;
  /** POST /v1/offers for the world's brand with the required fields, overridden by `over`. */
  createOffer(over?: Record<string, unknown>): Promise<Response>;
  offer(over?: Record<string, unknown>): Promise<Offer>;
  brand(name: string): Promise<string>;
  location(brandId: string, countryCode?: string, programId?: string): Promise<string>;
  card(number: string): Promise<string>;
}

/** The local date-time `days` from service time in `zone` (Europe/London unless given). */
export const localIn = (h: Harness, days: number, zone = "Europe/London") =>
  localAt(new Date(h.services.clock.now().getTime() + days * 86_400_000), zone);

export async function advanceDays(h: Harness, days: number) {
  await expectStatus(await h.admin("POST", "/admin/clock/advance", { days }), 200);
}

export async function world(h: Harness, env: "test" | "live" = "test"): Promise<World> {
  const acct = await h.createAccount();
  const client = acct.as(env);
  const programId = (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Offers" }), 201)).id;
  const brand = async (name: string) => {
    const id = (await expectStatus<{ id: string }>(await client.post("/v1/brands", { name }), 201)).id;
    if (env === "live") await expectStatus(await h.admin("POST", `/admin/brands/${id}/consent`, { decision: "approved" }), 200);
    return id;
  };
  const location = async (brandId: string, countryCode = "GBR", program = programId) =>
    (
      await expectStatus<{ id: string }>(
        await client.post(`/v1/programs/${program}/locations`, {
          address: "1 High Street",
          brandId,
          city: "London",
          countryCode,
          postcode: "SW1A 1AA",
        }),
        201,
      )
    ).id;
  const card = async (number: string) =>
    (
      await expectStatus<{ id: string }>(
        await client.post(`/v1/programs/${programId}/cards`, { number, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true }),
        201,
      )
    ).id;
  const brandId = await brand("Coffee House");
  const locationId = await location(brandId);
  const cardId = await card(env === "live" ? CARD_NUMBERS.live : CARD_NUMBERS.test);
  const createOffer = (over: Record<string, unknown> = {}) =>
    client.post("/v1/offers", {
      brandId,
      countryCode: "GBR",
      name: "10% off coffee",
      publisherId: acct.id,
      startDate: localIn(h, 1),
      type: { name: "discount", value: 10 },
      ...over,
    });
  return {
    acct,
    client,
    env,
    programId,
    brandId,
    locationId,
    cardId,
    createOffer,
    offer: async (over) => expectStatus<Offer>(await createOffer(over), 201),
    brand,
    location,
    card,
  };
}

/** Expects a 400 whose message contains `text` (the field and the rule). */
export async function expect400(res: Response, text: string) {
  expect(await expectError(res, 400, "invalid_request")).toContain(text);
}

/** The offer events written to the outbox for an account, oldest first (other events, such as location.status, left out). */
export const outboxOf = (h: Harness, accountId: string) =>
  h.services.db.query<{ event: string; program_id: string | null; live: boolean; data: Offer }>(
    "select event, program_id, live, data from outbox where account_id = $1 and event like 'offer.%' order by created, id",
    [accountId],
  );
