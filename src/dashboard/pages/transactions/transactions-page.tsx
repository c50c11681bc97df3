// The program's transactions as a live feed (server-sent events) with their offer result, stage, card,
// location and scheme, filtered by card and location; the test purchase form and card enrolment.
import { qs, type DashContext, type List } from "../../context.ts";
import { Field, Layout, Pager, Select, Table, type Options } from "../../layout.tsx";
import type { Program } from "../../../services/catalog/index.ts";
import type { Transaction } from "../../../services/transactions/index.ts";
import { TxRow } from "./transaction-row.tsx";
import { TestPurchase, type Suggestion } from "./test-purchase.tsx";

const HEAD = ["When (local)", "Stage", "Amount", "Offer result", "Card", "Location"];

/** The feed's filters, as its form and links carry them. */
export interface TransactionFilters {
  cardId: string | undefined;
  locationId: string | undefined;
}

interface TransactionsProps {
  c: DashContext;
  programs: Program[];
  program: Program;
  filters: TransactionFilters;
  list: List<Transaction>;
  /** The first page is live: the feed adds what happens after it was opened. */
  live: boolean;
  cardOptions: Options;
  locationOptions: Options;
  /** A test key's page: the test purchase form is shown. */
  testKey: boolean;
  suggestion: Suggestion | undefined;
}

export function TransactionsPage(props: TransactionsProps) {
  const { c, programs, program, filters, list, live, cardOptions, locationOptions } = props;
  const streamUrl = `/dashboard/transactions/stream${qs({ program: program.id, ...filters })}`;
  return (
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
      {props.testKey && <TestPurchase suggestion={props.suggestion} programId={program.id} cardOptions={cardOptions} locationOptions={locationOptions} />}
      <EnrolCard programId={program.id} />
    </Layout>
  );
}

/** Enrols a card in the program (POST /dashboard/cards, the cards page). */
const EnrolCard = ({ programId }: { programId: string }) => (
  <section aria-labelledby="enrol">
    <h2 id="enrol">Enrol a card</h2>
    <form method="post" action={`/dashboard/cards${qs({ program: programId })}`} class="grid">
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
);
