// The population traffic draws from, as this network knows it — never from the service's tables: the
// cards enrolments told it about, and the service's locations its onboarding requests (or test
// purchases) told it about, split by whether it has onboarded them. Sandboxes' are left out: their purchases
// run on their own clocks, and traffic runs on the service's.
import type { SimulatorDb as Db } from "./db.ts";
import type { Pools } from "./generator.ts";
import type { Merchant, Scheme } from "./types.ts";

/** At most this many cards and locations are drawn from; enough for any demo or load test here. */
const LIMIT = 10_000;

export async function loadPools(db: Db, scheme: Scheme, programId: string | undefined): Promise<Pools> {
  const cards = await db.query<{ card_id: string; first_six: string; last_four: string }>(
    `select card_id, first_six, last_four from simulator_cards
     where scheme = $1 and enrolled and environment = '' and ($2::uuid is null or program_id = $2) order by card_id limit ${LIMIT}`,
    [scheme, programId ?? null],
  );
  const merchants = await db.query<{ merchant: Merchant; onboarded: boolean }>(
    `select merchant, onboarded from simulator_merchants
     where scheme = $1 and location_id is not null and environment = '' and ($2::uuid is null or program_id = $2) order by merchant_key limit ${LIMIT}`,
    [scheme, programId ?? null],
  );
  return {
    cards: cards.map((c) => ({ id: c.card_id, firstSix: c.first_six, lastFour: c.last_four })),
    onboarded: merchants.filter((m) => m.onboarded).map((m) => m.merchant),
    notOnboarded: merchants.filter((m) => !m.onboarded).map((m) => m.merchant),
  };
}
