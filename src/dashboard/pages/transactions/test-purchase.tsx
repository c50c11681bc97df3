// The test purchase form of the Transactions page (test keys): it starts with a card, a location and an
// amount that a live offer of the program rewards now, or says why no purchase would qualify.
import { callApi, must, qs, type DashContext, type List } from "../../context.ts";
import { Field, Select, type Options } from "../../layout.tsx";
import type { Card, Location } from "../../../services/catalog/index.ts";
import type { Offer, OfferActivation } from "../../../services/offers/index.ts";
import type { ActivationState } from "../../../domain/qualification.ts";
import { qualifyingPurchase, type QualifyingPurchase } from "../../../domain/test-purchase.ts";
import { localAt } from "../../../domain/local-dates.ts";

/** What the test purchase form starts with: a purchase a live offer of the program rewards, else why there is none. */
export type Suggestion = { purchase: QualifyingPurchase; offer: Offer } | { purchase: null; liveOffers: number };

/** The live offers considered for the suggestion: the newest, each read with its linked locations (and activations). */
const SUGGESTION_OFFERS = 10;

export async function suggestPurchase(c: DashContext, programId: string, cards: Card[]): Promise<Suggestion> {
  const [clock, live] = await Promise.all([
    callApi<{ now: string }>(c, "GET", "/v1/clock"),
    callApi<List<Offer>>(c, "GET", `/v1/offers${qs({ programId, status: "live", limit: SUGGESTION_OFFERS })}`),
  ]);
  const offers = must(live).items;
  if (offers.length === 0) return { purchase: null, liveOffers: 0 };
  const now = must(clock).now;
  const linked = await Promise.all(
    offers.map(async (offer) => {
      const [locations, activations] = await Promise.all([
        callApi<List<Location>>(c, "GET", `/v1/programs/${programId}/locations${qs({ offerId: offer.id, limit: 100 })}`),
        offer.activation.enabled ? callApi<List<OfferActivation>>(c, "GET", `/v1/offers/${offer.id}/cards?limit=100`) : undefined,
      ]);
      const states = new Map((activations ? must(activations).items : []).map((a) => [a.cardId, a.state]));
      return {
        offer,
        locations: must(locations).items.map((l) => ({ id: l.id, localNow: localAt(new Date(now), l.timezone) })),
        activationOf: (cardId: string): ActivationState => states.get(cardId) ?? "not activated",
      };
    }),
  );
  const byId = new Map(linked.map((l) => [l.offer.id, l]));
  const purchase = qualifyingPurchase(linked, cards, (offerId, cardId) => byId.get(offerId)!.activationOf(cardId), now);
  return purchase ? { purchase, offer: byId.get(purchase.offerId)!.offer } : { purchase: null, liveOffers: offers.length };
}

/** Says what the form starts with, and why the purchase will not qualify when no pair does. */
function SuggestionNote({ suggestion, programId }: { suggestion: Suggestion; programId: string }) {
  const offers = `/dashboard/offers${qs({ program: programId })}`;
  if (suggestion.purchase) {
    const { offer, purchase } = suggestion;
    return (
      <p class="hint" id="tp-suggestion">
        Preselected: a card and a location where the live offer <a href={`/dashboard/offers/${offer.id}${qs({ program: programId })}`}>{offer.name}</a>{" "}
        rewards a purchase made now, for {purchase.amount} {offer.currency}
        {purchase.targetingTag && `, tagged ${purchase.targetingTag}`}.
      </p>
    );
  }
  return (
    <p class="hint" id="tp-suggestion">
      {suggestion.liveOffers === 0 ? (
        <>
          No live offer is linked to this program's locations, so a purchase here is <strong>Not qualified</strong>:{" "}
          <a href={`/dashboard/offers/new${qs({ program: programId })}`}>create an offer</a> and link one of its locations.
        </>
      ) : (
        <>
          No card and location of this program qualifies for its <a href={offers}>live offers</a> now (a scheme the offer leaves
          out, an activation the card lacks, a day it is not available): the purchase is <strong>Not qualified</strong>, with the reason.
        </>
      )}
    </p>
  );
}

interface TestPurchaseProps {
  /** Absent when the program has no card or no location yet. */
  suggestion: Suggestion | undefined;
  programId: string;
  cardOptions: Options;
  locationOptions: Options;
}

export function TestPurchase({ suggestion, programId, cardOptions, locationOptions }: TestPurchaseProps) {
  const preset = suggestion?.purchase ?? undefined;
  return (
    <section aria-labelledby="test-purchase">
      <h2 id="test-purchase">Send a test purchase</h2>
      {!suggestion ? (
        <p>Enrol a card (below) and add a location (Locations page) first.</p>
      ) : (
        <>
          <SuggestionNote suggestion={suggestion} programId={programId} />
          <form method="post" action={`/dashboard/transactions/test${qs({ program: programId })}`} class="grid" aria-describedby="tp-suggestion">
            <Select name="cardId" id="tp-card" label="Card" options={cardOptions} value={preset?.cardId} />
            <Select name="locationId" id="tp-location" label="Location" options={locationOptions} value={preset?.locationId} />
            <Field name="amount" id="tp-amount" label="Amount" type="text" required value={preset?.amount} hint="In the location's currency." />
            <Field name="datetime" id="tp-datetime" label="Date and time (local)" type="datetime-local" step="1" hint="Default: now at the location." />
            <Select
              name="targetingTag"
              id="tp-tag"
              label="Targeting tag"
              options={[["", "None"], ["new", "new"], ["lapsed", "lapsed"], ["existing", "existing"]]}
              value={preset?.targetingTag ?? undefined}
            />
            <div class="actions">
              <button type="submit">Send purchase</button>
            </div>
          </form>
        </>
      )}
    </section>
  );
}
