// The world the purchase benches buy in: an account (premium, for the rate budget) with a program, a brand,
// its locations, test cards, a live 10 % offer over every location and one hook on the receiver, each
// location bought at once so it is onboarded on its scheme and every role is warm.
import type { Pool } from "undici";
import { testCardNumbers } from "../../load/card-numbers.js";

/** The benches' HTTP call: status and parsed JSON body. */
export type Call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<{ status: number; json: unknown; retryAfter?: string }>;

/** The benches' call over an undici pool: JSON in and out, with the answer's `Retry-After`. */
export function poolCall(pool: Pool) {
  return async <T = unknown>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: T; retryAfter?: string }> => {
    const res = await pool.request({
      method: method as "GET",
      path,
      headers: { ...headers, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    const retryAfter = res.headers["retry-after"];
    return { status: res.statusCode, json: (text ? JSON.parse(text) : null) as T, ...(typeof retryAfter === "string" ? { retryAfter } : {}) };
  };
}

export interface PurchaseWorld {
  accountId: string;
  key: Record<string, string>;
  cards: string[];
  locations: string[];
}

export async function purchaseWorld(
  call: Call,
  admin: Record<string, string>,
  { name, cards: cardCount, locations: locationCount, hookUrl }: { name: string; cards: number; locations: number; hookUrl: string },
): Promise<PurchaseWorld> {
  const expect = async <T>(status: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> => {
    const res = await call(method, path, headers, body);
    if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json as T;
  };
  const account = await expect<{ id: string; keys: { test: string } }>(201, "POST", "/admin/accounts", admin, { name, tier: "premium" });
  const key = { "Cardlink-Key": account.keys.test };
  const program = await expect<{ id: string }>(201, "POST", "/v1/programs", key, { name: `${name} purchases` });
  const brand = await expect<{ id: string }>(201, "POST", "/v1/brands", key, { name: `${name} Coffee` });
  const locations = await Promise.all(
    Array.from({ length: locationCount }, (_, i) =>
      expect<{ id: string }>(201, "POST", `/v1/programs/${program.id}/locations`, key, {
        brandId: brand.id,
        address: `${i + 1} High Street`,
        city: "London",
        postcode: "SW1A 1AA",
        countryCode: "GBR",
      }),
    ),
  );
  const now = new Date((await expect<{ now: string }>(200, "GET", "/admin/clock", admin)).now);
  const cards = await Promise.all(
    testCardNumbers(cardCount).map((number) =>
      expect<{ id: string }>(201, "POST", `/v1/programs/${program.id}/cards`, key, { number, expMonth: 12, expYear: now.getUTCFullYear() + 3, countryCode: "GBR", termsOfUse: true }),
    ),
  );
  const offer = await expect<{ id: string }>(201, "POST", "/v1/offers", key, {
    brandId: brand.id,
    countryCode: "GBR",
    name: "10% off coffee",
    publisherId: account.id,
    startDate: new Date(now.getTime() - 2 * 86_400_000).toISOString().slice(0, 10) + "T00:00:00",
    type: { name: "discount", value: 10, maxRewardAmount: 25 },
    minTransactionAmount: 5,
  });
  await expect(200, "POST", `/v1/offers/${offer.id}/programs/${program.id}/locations`, key);
  await expect(201, "POST", `/v1/programs/${program.id}/hooks`, key, { event: "transaction.auth", url: hookUrl });
  for (const location of locations) await expect(201, "POST", "/v1/transactions/test", key, { cardId: cards[0]!.id, locationId: location.id, amount: 6 });
  return { accountId: account.id, key, cards: cards.map((c) => c.id), locations: locations.map((l) => l.id) };
}
