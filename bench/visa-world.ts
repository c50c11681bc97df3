// What the qualifier and pipeline benchmarks share: test locations onboarded by the simulated networks,
// and Visa auth messages for a card at one of them, as the Visa network sends them.
import type { Runtime } from "../src/app/runtime.ts";
import { startRoles } from "../src/app/roles.ts";
import type { VisaTransaction } from "../src/platform/bus/messages.ts";
import { ADAPTERS } from "../simulators/schemes/index.ts";
import { emptyMids, type Purchase } from "../simulators/engine/types.ts";

export type VisaMids = { vmid: string; vsid: string; visaAcquiringMid: string; visaBin: string };
export type BenchLocation = { id: string; status: { visa: { mids: VisaMids[] } } };

/**
 * A test location's MIDs come back from the simulated networks over the bus (test onboarding, answered at
 * once and applied by the workers): runs both until every location has its Visa MIDs, and returns the
 * locations as they are then.
 */
export async function onboarded<L extends BenchLocation>(services: Runtime, locations: L[], read: (id: string) => Promise<L>): Promise<L[]> {
  const roles = await startRoles(services, ["simulators", "workers"]);
  const deadline = Date.now() + 120_000;
  const result: L[] = [];
  try {
    for (const location of locations) {
      for (;;) {
        const current = await read(location.id);
        if (current.status.visa.mids.length > 0) {
          result.push(current);
          break;
        }
        if (Date.now() > deadline) throw new Error(`location ${location.id} has no Visa MIDs after 120 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    await roles.stop();
  }
  return result;
}

/** A Visa auth of `amount` GBP on the card at a London location, keyed by card id as on the topic. */
export function visaAuth(input: {
  id: string;
  card: { id: string; firstSix: string; lastFour: string };
  location: BenchLocation;
  brandName: string;
  merchantName: string;
  amount: number;
  now: Date;
}): { key: string; value: VisaTransaction } {
  const { location, now } = input;
  const purchase: Purchase = {
    id: input.id,
    scheme: "visa",
    card: input.card,
    merchant: {
      key: location.id,
      locationId: location.id,
      name: input.brandName,
      address: "High Street",
      city: "London",
      postcode: "SW1A 1AA",
      countryCode: "GBR",
      timezone: "Europe/London",
      mcc: "5814",
      mids: { ...emptyMids(), ...location.status.visa.mids[0]!, merchantName: input.merchantName },
    },
    amount: input.amount,
    currency: "GBP",
    localDateTime: now.toISOString().slice(0, 19),
    authorizedAt: now.toISOString(),
    cardPresent: true,
    wallet: null,
    targetingTag: null,
  };
  return { key: input.card.id, value: ADAPTERS.visa.auth(purchase, now) as VisaTransaction };
}
