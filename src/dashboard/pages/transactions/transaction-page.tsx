// A transaction's page: its facts, every offer its decision weighed, the network's own messages, its
// webhook deliveries, and (test keys) the buttons that clear and refund it.
import { qs, type DashContext } from "../../context.ts";
import { ActionButton, Badge, Layout, Table, money } from "../../layout.tsx";
import { DeliveryTable } from "../../components/deliveries.tsx";
import type { Program } from "../../../services/catalog/index.ts";
import type { ConsideredOfferView, Transaction, TransactionQualification } from "../../../services/transactions/index.ts";
import type { Delivery } from "../../../services/webhooks/index.ts";
import type { Offer } from "../../../services/offers/index.ts";
import { CONSIDERED_LIMIT } from "../../../domain/qualification.ts";
import { OfferResult, stageOf } from "./transaction-row.tsx";

/** Where a transaction's page leads back to. */
const TRANSACTIONS = { href: "/dashboard/transactions", label: "Transactions" };

interface TransactionProps {
  c: DashContext;
  programs: Program[];
  t: Transaction;
  /** The offer the record names, unless it was deleted since. */
  offer: Offer | undefined;
  qualification: TransactionQualification;
  deliveries: Delivery[];
}

export function TransactionPage({ c, programs, t, offer, qualification, deliveries }: TransactionProps) {
  const back = `/dashboard/transactions/${t.id}`;
  return (
    <Layout c={c} title={`Transaction ${t.id}`} program={programs.find((p) => p.id === t.programId)} programs={programs} list={TRANSACTIONS}>
      <TransactionFacts t={t} offer={offer} />
      {c.var.session.kind === "key" && !c.var.session.caller.live && t.type === "purchase" && (
        <div class="actions">
          {!t.cleared && !t.expired && <ActionButton action={`${back}/clear`} label="Clear now" />}
          <form method="post" action={`${back}/refund`} class="inline">
            <label for="refund-amount">Refund amount</label>
            <input id="refund-amount" name="amount" placeholder={String(t.amount)} />
            <button type="submit">Refund</button>
          </form>
        </div>
      )}
      <OffersConsidered t={t} q={qualification} />
      <NetworkMessages t={t} q={qualification} />
      <h2>Webhook deliveries</h2>
      <p>
        <a href={`/dashboard/events${qs({ program: t.programId, transactionId: t.id })}`}>This transaction's events</a>, with their payloads
        and every attempt's request and response.
      </p>
      <DeliveryTable deliveries={deliveries} back={back} />
    </Layout>
  );
}

function TransactionFacts({ t, offer }: { t: Transaction; offer: Offer | undefined }) {
  return (
    <dl class="facts">
      <dt>Stage</dt>
      <dd>{stageOf(t)}</dd>
      <dt>Amount</dt>
      <dd>{money(t.amount, t.currency)}</dd>
      <dt>When (local)</dt>
      <dd>{t.datetime.replace("T", " ")}</dd>
      <dt>Offer result</dt>
      <dd>
        <OfferResult t={t} />
      </dd>
      <dt>{t.offer.qualified ? "Winning offer" : "Offer considered"}</dt>
      <WinningOffer t={t} offer={offer} />
      <dt>Card</dt>
      <dd>
        {t.card.scheme} {t.card.firstNumbers}···{t.card.lastNumbers}
      </dd>
      <dt>Brand</dt>
      <dd>{t.brand?.name ?? "—"}</dd>
      <dt>Location</dt>
      <dd>{t.location ? `${t.location.address}, ${t.location.postcode} ${t.location.city}, ${t.location.countryCode}` : "—"}</dd>
      <dt>Targeting tag</dt>
      <dd>{t.targetingTag ?? "—"}</dd>
      <dt>Network identifiers</dt>
      <dd>
        {Object.entries(t.identifiers)
          .filter(([, v]) => v)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ") || "—"}
        <small class="hint">As normalised from the {t.card.scheme} message, shown below as the network sent it.</small>
      </dd>
    </dl>
  );
}

/** The offer that won, or the newest considered when none qualified: linked while it exists, else its id. */
const WinningOffer = ({ t, offer }: { t: Transaction; offer: Offer | undefined }) => (
  <dd id="winning-offer">
    {offer ? <a href={`/dashboard/offers/${offer.id}`}>{offer.name}</a> : t.offer.id ? <code>{t.offer.id}</code> : "None: no live offer applied here."}
    {!t.offer.qualified && t.offer.message.length > 0 && <small class="case">{t.offer.message.join(" ")}</small>}
    <small class="hint">
      {t.offer.qualified
        ? "When several offers applied, this is the one that paid most; every offer considered is listed below with why it lost."
        : "The newest offer considered, when none qualified; every offer considered is listed below with why it did not qualify."}
    </small>
  </dd>
);

const OUTCOME = { won: ["Won", "active"], lost: ["Lost", "idle"], rejected: ["Rejected", "not-qualified"] } as const;

/** One offer the decision weighed: its name linked while it exists (else its id), how it fared, its award or why it lost. */
const ConsideredRow = ({ o, currency }: { o: ConsideredOfferView; currency: string }) => {
  const [label, tone] = OUTCOME[o.outcome];
  return (
    <tr data-offer={o.offerId} data-outcome={o.outcome}>
      <td>{o.offerName !== null ? <a href={`/dashboard/offers/${o.offerId}`}>{o.offerName}</a> : <code>{o.offerId}</code>}</td>
      <td>
        <Badge text={label} tone={tone} />
      </td>
      <td>{o.cashback !== null ? `cashback ${money(o.cashback, currency)}, fee ${money(o.performanceFee ?? 0, currency)}` : "—"}</td>
      <td>{o.reason ?? "—"}</td>
    </tr>
  );
};

/** Every offer the qualifier weighed for the transaction, the winner first. */
function OffersConsidered({ t, q }: { t: Transaction; q: TransactionQualification }) {
  return (
    <section aria-labelledby="offers-considered-title">
      <h2 id="offers-considered-title">Offers considered</h2>
      {q.considered === null ? (
        <p id="offers-considered-none">
          {t.type === "refund" ? (
            <>
              A refund is not decided against offers: it reverses its purchase's award
              {t.originalTransactionId && (
                <>
                  {" "}
                  (<a href={`/dashboard/transactions/${t.originalTransactionId}`}>the purchase</a>)
                </>
              )}
              .
            </>
          ) : (
            "Recorded before Cardlink kept the offers considered."
          )}
        </p>
      ) : (
        <Table
          caption="Offers considered, the winner first"
          head={["Offer", "Outcome", "Award", "Why it lost"]}
          id="offers-considered"
          empty="No live offer was linked to the location when the transaction arrived."
        >
          {q.considered.map((o) => (
            <ConsideredRow o={o} currency={t.currency} />
          ))}
        </Table>
      )}
      {q.moreConsidered > 0 && (
        <p class="hint">
          And {q.moreConsidered} more offers that paid less or were rejected, not listed (the record keeps {CONSIDERED_LIMIT}).
        </p>
      )}
    </section>
  );
}

/** The scheme's own message of each stage, pretty-printed as the network sent it. */
function NetworkMessages({ t, q }: { t: Transaction; q: TransactionQualification }) {
  return (
    <section aria-labelledby="network-message-title" id="network-message">
      <h2 id="network-message-title">Network message</h2>
      {q.nativeMessages.length === 0 && (
        <p>{t.location === null ? "Submitted by the publisher: no network message." : "Recorded before Cardlink kept the networks' messages."}</p>
      )}
      {q.nativeMessages.map((m) => (
        <div class="native-message" data-stage={m.stage}>
          <h3>
            {m.scheme} {m.kind ?? "message"} <small>({m.stage})</small>
          </h3>
          <pre class="payload" tabindex={0} aria-label={`The ${m.scheme} ${m.kind ?? ""} message of the ${m.stage}`}>
            {JSON.stringify(m.value, null, 2)}
          </pre>
        </div>
      ))}
    </section>
  );
}
