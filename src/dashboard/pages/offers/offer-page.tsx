// An offer's page: its terms, and the forms that link one location or all of a program's, activate and
// deactivate it on a card, extend it and delete it.
import { must, type ApiResult, type DashContext, type List } from "../../context.ts";
import { ActionButton, Layout, Table } from "../../layout.tsx";
import { StatusBadge } from "../../statuses.tsx";
import type { Card, Location, Program } from "../../../services/catalog/index.ts";
import type { Offer, OfferActivation } from "../../../services/offers/index.ts";
import { DAYS, reward } from "./groups.tsx";

interface OfferProps {
  c: DashContext;
  programs: Program[];
  program: Program | undefined;
  o: Offer;
  /** The program's cards and its locations of the offer's brand; absent without a program. */
  cards: ApiResult<List<Card>> | undefined;
  locations: ApiResult<List<Location>> | undefined;
  activations: ApiResult<List<OfferActivation>>;
}

export function OfferPage({ c, programs, program, o, cards, locations, activations }: OfferProps) {
  const self = `/dashboard/offers/${o.id}`;
  const p = { program: program?.id ?? "" };
  return (
    <Layout c={c} title={`Offer: ${o.name}`} program={program} programs={programs}>
      <OfferFacts o={o} />
      <section aria-labelledby="link">
        <h2 id="link">Link locations</h2>
        {program && locations ? (
          <div class="actions">
            <form method="post" action={`${self}/link`} class="inline">
              <input type="hidden" name="program" value={program.id} />
              <label for="link-location">Location</label>
              <select id="link-location" name="locationId">
                {must(locations).items.map((l) => (
                  <option value={l.id}>
                    {l.address}, {l.city}
                  </option>
                ))}
              </select>
              <button type="submit">Link location</button>
            </form>
            <ActionButton action={`${self}/link-program`} label={`Link all of ${program.name}'s locations of the brand`} fields={p} />
          </div>
        ) : (
          <p>Create a program and a location first.</p>
        )}
      </section>
      <Activations self={self} program={p.program} cards={cards} activations={activations} />
      <section aria-labelledby="extend">
        <h2 id="extend">Extend or delete</h2>
        <form method="post" action={`${self}/extend`} class="inline">
          <input type="hidden" name="program" value={p.program} />
          <label for="extend-end">New end (local)</label>
          <input id="extend-end" name="endDate" type="datetime-local" step="1" />
          <button type="submit">Extend</button>
        </form>
        <ActionButton action={`${self}/delete`} label="Delete offer" danger fields={p} />
      </section>
    </Layout>
  );
}

function OfferFacts({ o }: { o: Offer }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={o.status} />
      </dd>
      <dt>Brand</dt>
      <dd>{o.brandName}</dd>
      <dt>Reward</dt>
      <dd>{reward(o)}</dd>
      <dt>Start – end (local)</dt>
      <dd>
        {o.startDate.replace("T", " ")} – {o.endDate?.replace("T", " ") ?? "—"}
      </dd>
      <dt>Linked locations</dt>
      <dd>{o.locationsTotal}</dd>
      <dt>Days</dt>
      <dd>{o.daysOfWeek.map((d) => DAYS[d]!.slice(0, 3)).join(", ")}</dd>
      <dt>Schemes</dt>
      <dd>{o.schemes.join(", ")}</dd>
      <dt>Minimum transaction</dt>
      <dd>
        {o.minTransactionAmount} {o.currency}
      </dd>
      <dt>Return period</dt>
      <dd>{o.returnPeriod} days</dd>
      <dt>Fees</dt>
      <dd>{o.fees ? `publisher ${o.fees.publisherFee}, service ${o.fees.serviceFee}` : `feeSplit ${o.feeSplit ?? 0}`}</dd>
      <dt>Targeting</dt>
      <dd>{o.targeting ? `${o.targeting.name} ${o.targeting.from ?? ""}–${o.targeting.to ?? ""} days` : "none"}</dd>
      <dt>Activation</dt>
      <dd>{o.activation.enabled ? `required, ${o.activation.qualifiedTransactionsLimit ?? 1} qualified per activation` : "not required"}</dd>
      <dt>Origin</dt>
      <dd>
        {o.origin.type}
        {o.marketplace && `, marketplace (${o.marketplace.approval})`}
      </dd>
    </dl>
  );
}

type ActivationsProps = { self: string; program: string } & Pick<OfferProps, "cards" | "activations">;

/** The cards the offer is activated on, with a deactivate button each, and the form that activates it on another. */
function Activations({ self, program, cards, activations }: ActivationsProps) {
  return (
    <section aria-labelledby="activation">
      <h2 id="activation">Activation on cards</h2>
      <Table caption="Cards with this offer activated" head={["Card", "State", "Qualified", ""]} empty="No card has activated it.">
        {must(activations).items.map((a) => (
          <tr>
            <td>{a.cardId}</td>
            <td>
              <StatusBadge status={a.state} />
            </td>
            <td>
              {a.qualifiedTransactions} of {a.qualifiedTransactionsLimit ?? "—"}
            </td>
            <td>{a.state === "activated" && <ActionButton action={`${self}/deactivate`} label="Deactivate" fields={{ program, cardId: a.cardId }} />}</td>
          </tr>
        ))}
      </Table>
      {cards && (
        <form method="post" action={`${self}/activate`} class="inline">
          <input type="hidden" name="program" value={program} />
          <label for="activate-card">Card</label>
          <select id="activate-card" name="cardId">
            {must(cards).items.map((k) => (
              <option value={k.id}>
                {k.scheme} ···{k.lastNumbers}
              </option>
            ))}
          </select>
          <button type="submit">Activate on card</button>
        </form>
      )}
    </section>
  );
}
