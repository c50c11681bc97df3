// Transactions: the program's transactions as a live feed (server-sent events) with their offer
// result, stage, card, location and scheme; test purchases and card enrolment; a transaction's
// detail with every offer its decision weighed, the network's own messages, its webhook deliveries,
// clearing and refund.
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { callApi, must, qs, type DashContext, type DashEnv, type List } from "../context.ts";
import { afterAction } from "../actions.ts";
import { compact, localDateTime, num, readForm, text } from "../form.ts";
import { ActionButton, Badge, Field, Layout, Pager, Select, Table, money } from "../layout.tsx";
import { listPrograms, NoProgram, programsOf } from "../programs.tsx";
import { DeliveryTable } from "./webhooks.tsx";
import { sessionById } from "../session.ts";
import type { Card } from "../../services/catalog/index.ts";
import type { Location } from "../../services/catalog/index.ts";
import type { ConsideredOfferView, Transaction, TransactionQualification } from "../../services/transactions/index.ts";
import type { Delivery } from "../../services/webhooks/index.ts";
import type { Offer } from "../../services/offers/index.ts";
import { CONSIDERED_LIMIT, type ActivationState } from "../../domain/qualification.ts";
import { qualifyingPurchase, type QualifyingPurchase } from "../../domain/test-purchase.ts";
import { localAt } from "../../domain/local-dates.ts";
import type { OfferActivation } from "../../services/offers/index.ts";

const stageOf = (t: Transaction) => (t.type === "refund" ? "refund" : t.expired ? "expired" : t.cleared ? "clearing" : "auth");

export function OfferResult({ t }: { t: Transaction }) {
  return t.offer.qualified ? (
    <span>
      <Badge text="Qualified" tone="active" /> cashback {money(t.offer.cashback, t.currency)}, fee {money(t.offer.performanceFee, t.currency)}
      {t.offer.qualificationDate && ` (qualifies ${t.offer.qualificationDate})`}
    </span>
  ) : (
    <span>
      <Badge text="Not qualified" tone="idle" /> {t.offer.message.join(" ")}
    </span>
  );
}

export const TxRow = ({ t }: { t: Transaction }) => (
  <tr id={`tx-${t.id}`} data-id={t.id}>
    <td>
      <a href={`/dashboard/transactions/${t.id}`}>{t.datetime.replace("T", " ")}</a>
    </td>
    <td>{stageOf(t)}</td>
    <td>{money(t.amount, t.currency)}</td>
    <td>
      <OfferResult t={t} />
    </td>
    <td>
      {t.card.scheme} ···{t.card.lastNumbers}
    </td>
    <td>{t.location ? `${t.location.address}, ${t.location.city}` : "—"}</td>
  </tr>
);

/** Where a transaction's page leads back to. */
const TRANSACTIONS = { href: "/dashboard/transactions", label: "Transactions" };

const HEAD = ["When (local)", "Stage", "Amount", "Offer result", "Card", "Location"];

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

/** What the test purchase form starts with: a purchase a live offer of the program rewards, else why there is none. */
type Suggestion = { purchase: QualifyingPurchase; offer: Offer } | { purchase: null; liveOffers: number };

/** The live offers considered for the suggestion: the newest, each read with its linked locations (and activations). */
const SUGGESTION_OFFERS = 10;

async function suggestPurchase(c: DashContext, programId: string, cards: Card[]): Promise<Suggestion> {
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

function filtersOf(c: DashContext) {
  return { cardId: c.req.query("cardId"), locationId: c.req.query("locationId") };
}

export function mountTransactions(dash: Hono<DashEnv>) {
  dash.get("/transactions", async (c) => {
    const { programs, program } = await programsOf(c);
    if (!program) return c.html(<Layout c={c} title="Transactions">{NoProgram()}</Layout>);
    const filters = filtersOf(c);
    const start = c.req.query("start");
    const [page, cards, locations] = await Promise.all([
      callApi<List<Transaction>>(c, "GET", `/v1/programs/${program.id}/transactions${qs({ ...filters, start, limit: 25 })}`),
      callApi<List<Card>>(c, "GET", `/v1/programs/${program.id}/cards?limit=100`),
      callApi<List<Location>>(c, "GET", `/v1/programs/${program.id}/locations?limit=100`),
    ]);
    const list = must(page);
    const cardOptions = must(cards).items.map((k) => [k.id, `${k.scheme} ${k.firstNumbers}···${k.lastNumbers}`] as const);
    const locationOptions = must(locations).items.map((l) => [l.id, `${l.address}, ${l.city}`] as const);
    const testKey = c.var.session.kind === "key" && !c.var.session.caller.live;
    const suggestion = testKey && cardOptions.length > 0 && locationOptions.length > 0 ? await suggestPurchase(c, program.id, must(cards).items) : undefined;
    const preset = suggestion?.purchase ?? undefined;
    const live = !start;
    const streamUrl = `/dashboard/transactions/stream${qs({ program: program.id, ...filters })}`;
    return c.html(
      <Layout c={c} title="Transactions" program={program} programs={programs}>
        <form method="get" action="/dashboard/transactions" class="filters">
          <input type="hidden" name="program" value={program.id} />
          <Select name="cardId" label="Card" options={[["", "Any card"], ...cardOptions]} value={filters.cardId} />
          <Select name="locationId" label="Location" options={[["", "Any location"], ...locationOptions]} value={filters.locationId} />
          <button type="submit">Filter</button>
        </form>
        <p id="feed-status" class="hint" aria-live="polite">
          {live ? "Live: new and changed transactions appear at the top as they happen." : "An earlier page (not live)."}
        </p>
        <Table caption="Transactions, newest first" head={HEAD} id="feed">
          {list.items.map((t) => (
            <TxRow t={t} />
          ))}
        </Table>
        {live && <div hidden id="feed-source" data-src={streamUrl}></div>}
        <Pager
          note={live ? "when the page was opened" : undefined}
          count={list.count}
          shown={list.items.length}
          last={list.last}
          next={(s) => `/dashboard/transactions${qs({ program: program.id, ...filters, start: s })}`}
        />
        {testKey && (
          <section aria-labelledby="test-purchase">
            <h2 id="test-purchase">Send a test purchase</h2>
            {!suggestion ? (
              <p>Enrol a card (below) and add a location (Locations page) first.</p>
            ) : (
              <>
                <SuggestionNote suggestion={suggestion} programId={program.id} />
                <form method="post" action={`/dashboard/transactions/test${qs({ program: program.id })}`} class="grid" aria-describedby="tp-suggestion">
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
        )}
        <section aria-labelledby="enrol">
          <h2 id="enrol">Enrol a card</h2>
          <form method="post" action={`/dashboard/cards${qs({ program: program.id })}`} class="grid">
            <Field name="number" label="Card number" required hint="Test keys take test numbers, e.g. 4444000000004008 (Visa)." />
            <Field name="expMonth" label="Expiry month" required value="12" />
            <Field name="expYear" label="Expiry year" required value="2030" />
            <Field name="countryCode" id="card-country" label="Country (ISO alpha-3)" required value="GBR" />
            <div class="field">
              <input id="termsOfUse" name="termsOfUse" type="checkbox" value="true" />
              <label for="termsOfUse">The cardholder accepted the terms of use</label>
            </div>
            <div class="actions">
              <button type="submit">Enrol card</button>
            </div>
          </form>
        </section>
      </Layout>,
    );
  });

  // The live feed: every second, the newest page of the program's transactions through the API;
  // a row is sent when it is new or changed (a clearing, a qualification after a return period). Each
  // tick first checks the session is still there, and the feed closes when it is not.
  dash.get("/transactions/stream", async (c) => {
    const { program } = await programsOf(c);
    if (!program) return c.text("No program.", 404);
    const path = `/v1/programs/${program.id}/transactions${qs({ ...filtersOf(c), limit: 25 })}`;
    const first = must(await callApi<List<Transaction>>(c, "GET", path));
    const seen = new Map(first.items.map((t) => [t.id, t.updated]));
    const { db } = c.var.services;
    return streamSSE(c, async (stream) => {
      while (!stream.aborted) {
        await stream.sleep(1000);
        // Signed out, or its key revoked or rotated since the feed opened: the feed ends with the session.
        if (!(await sessionById(db, c.var.session.id))) {
          await stream.writeSSE({ event: "signed-out", data: "The session ended; sign in again." });
          break;
        }
        const page = await callApi<List<Transaction>>(c, "GET", path);
        if (!page.ok) break;
        for (const t of [...page.data.items].reverse()) {
          if (seen.get(t.id) === t.updated) continue;
          seen.set(t.id, t.updated);
          const html = (<TxRow t={t} />).toString();
          await stream.writeSSE({ event: "transaction", id: t.id, data: JSON.stringify({ id: t.id, html }) });
        }
      }
    });
  });

  dash.post("/transactions/test", async (c) => {
    const f = await readForm(c);
    const body = compact({
      cardId: text(f, "cardId"),
      locationId: text(f, "locationId"),
      amount: num(f, "amount"),
      datetime: localDateTime(f, "datetime"),
      targetingTag: text(f, "targetingTag"),
    });
    const result = await callApi<{ id: string }>(c, "POST", "/v1/transactions/test", body);
    const done = result.ok ? `Test purchase sent: transaction ${result.data.id}.` : "";
    return afterAction(c, result, done, `/dashboard/transactions${qs({ program: c.req.query("program") })}`);
  });

  dash.post("/cards", async (c) => {
    const f = await readForm(c);
    const program = c.req.query("program") ?? "";
    const body = compact({
      number: text(f, "number")?.replace(/\s+/g, ""),
      expMonth: num(f, "expMonth"),
      expYear: num(f, "expYear"),
      countryCode: text(f, "countryCode"),
      termsOfUse: text(f, "termsOfUse") === "true",
    });
    const result = await callApi(c, "POST", `/v1/programs/${encodeURIComponent(program)}/cards`, body);
    return afterAction(c, result, "Card enrolled.", `/dashboard/transactions${qs({ program })}`);
  });

  dash.get("/transactions/:id", async (c) => {
    const id = c.req.param("id");
    const [answer, programs] = await Promise.all([callApi<Transaction>(c, "GET", `/v1/transactions/${encodeURIComponent(id)}`), listPrograms(c)]);
    const t = must(answer);
    const [deliveryPage, offerAnswer, qualificationAnswer] = await Promise.all([
      callApi<List<Delivery>>(c, "GET", `/v1/transactions/${t.id}/deliveries?limit=100`),
      t.offer.id ? callApi<Offer>(c, "GET", `/v1/offers/${t.offer.id}`) : undefined,
      callApi<TransactionQualification>(c, "GET", `/v1/transactions/${t.id}/qualification`),
    ]);
    const deliveries = must(deliveryPage);
    const qualification = must(qualificationAnswer);
    // The offer may have been deleted since: the record still names its id.
    const offer = offerAnswer?.ok ? offerAnswer.data : undefined;
    const back = `/dashboard/transactions/${t.id}`;
    return c.html(
      <Layout c={c} title={`Transaction ${t.id}`} program={programs.find((p) => p.id === t.programId)} programs={programs} list={TRANSACTIONS}>
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
          <dd id="winning-offer">
            {offer ? <a href={`/dashboard/offers/${offer.id}`}>{offer.name}</a> : t.offer.id ? <code>{t.offer.id}</code> : "None: no live offer applied here."}
            {!t.offer.qualified && t.offer.message.length > 0 && <small class="case">{t.offer.message.join(" ")}</small>}
            <small class="hint">
              {t.offer.qualified
                ? "When several offers applied, this is the one that paid most; every offer considered is listed below with why it lost."
                : "The newest offer considered, when none qualified; every offer considered is listed below with why it did not qualify."}
            </small>
          </dd>
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
        <DeliveryTable deliveries={deliveries.items} back={back} />
      </Layout>,
    );
  });

  dash.post("/transactions/:id/clear", async (c) => {
    const id = encodeURIComponent(c.req.param("id"));
    const result = await callApi(c, "POST", `/v1/transactions/${id}/clear`, {});
    return afterAction(c, result, "Clearing sent.", `/dashboard/transactions/${id}`);
  });

  dash.post("/transactions/:id/refund", async (c) => {
    const id = encodeURIComponent(c.req.param("id"));
    const f = await readForm(c);
    const result = await callApi(c, "POST", `/v1/transactions/${id}/refund`, compact({ amount: num(f, "amount") }));
    return afterAction(c, result, "Refund sent.", `/dashboard/transactions/${id}`);
  });
}
