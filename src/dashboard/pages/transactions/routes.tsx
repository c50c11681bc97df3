// Transactions: the program's live feed with the test purchase form, the feed's stream, a test
// purchase, and a transaction's page with its clearing and refund.
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { callApi, must, qs, type DashContext, type DashEnv, type List, type RouteContext } from "../../context.ts";
import { afterAction } from "../../actions.ts";
import { compact, localDateTime, num, readForm, text } from "../../form.ts";
import { Layout } from "../../layout.tsx";
import { listPrograms, NoProgram, programsOf } from "../../programs.tsx";
import { sessionById } from "../../session.ts";
import type { Card, Location } from "../../../services/catalog/index.ts";
import type { Transaction, TransactionQualification } from "../../../services/transactions/index.ts";
import type { Delivery } from "../../../services/webhooks/index.ts";
import type { Offer } from "../../../services/offers/index.ts";
import { TxRow } from "./transaction-row.tsx";
import { TransactionsPage, type TransactionFilters } from "./transactions-page.tsx";
import { TransactionPage } from "./transaction-page.tsx";
import { suggestPurchase } from "./test-purchase.tsx";

export function mountTransactions(dash: Hono<DashEnv>) {
  dash.get("/transactions", listTransactions);
  dash.get("/transactions/stream", streamTransactions);
  dash.post("/transactions/test", sendTestPurchase);
  dash.get("/transactions/:id", showTransaction);
  dash.post("/transactions/:id/clear", clearTransaction);
  dash.post("/transactions/:id/refund", refundTransaction);
}

function filtersOf(c: DashContext): TransactionFilters {
  return { cardId: c.req.query("cardId"), locationId: c.req.query("locationId") };
}

async function listTransactions(c: DashContext) {
  const { programs, program } = await programsOf(c);
  if (!program) return c.html(<Layout c={c} title="Transactions">{NoProgram()}</Layout>);
  const filters = filtersOf(c);
  const start = c.req.query("start");
  const [transactions, cards, locations] = await Promise.all([
    callApi<List<Transaction>>(c, "GET", `/v1/programs/${program.id}/transactions${qs({ ...filters, start, limit: 25 })}`),
    callApi<List<Card>>(c, "GET", `/v1/programs/${program.id}/cards?limit=100`),
    callApi<List<Location>>(c, "GET", `/v1/programs/${program.id}/locations?limit=100`),
  ]);
  const list = must(transactions);
  const cardOptions = must(cards).items.map((k) => [k.id, `${k.scheme} ${k.firstNumbers}···${k.lastNumbers}`] as const);
  const locationOptions = must(locations).items.map((l) => [l.id, `${l.address}, ${l.city}`] as const);
  const testKey = c.var.session.kind === "key" && !c.var.session.caller.live;
  const suggestion = testKey && cardOptions.length > 0 && locationOptions.length > 0 ? await suggestPurchase(c, program.id, must(cards).items) : undefined;
  const page = { c, programs, program, filters, list, live: !start, cardOptions, locationOptions, testKey, suggestion };
  return c.html(<TransactionsPage {...page} />);
}

// The live feed: every second, the newest page of the program's transactions through the API;
// a row is sent when it is new or changed (a clearing, a qualification after a return period). Each
// tick first checks the session is still there, and the feed closes when it is not.
async function streamTransactions(c: DashContext) {
  const { program } = await programsOf(c);
  if (!program) return c.text("No program.", 404);
  const path = `/v1/programs/${program.id}/transactions${qs({ ...filtersOf(c), limit: 25 })}`;
  const first = must(await callApi<List<Transaction>>(c, "GET", path));
  const seen = new Map(first.items.map((t) => [t.id, t.updated]));
  const { db } = c.var.runtime;
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
}

async function sendTestPurchase(c: DashContext) {
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
}

async function showTransaction(c: RouteContext<"/transactions/:id">) {
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
  return c.html(<TransactionPage c={c} programs={programs} t={t} offer={offer} qualification={qualification} deliveries={deliveries.items} />);
}

async function clearTransaction(c: RouteContext<"/transactions/:id/clear">) {
  const id = encodeURIComponent(c.req.param("id"));
  const result = await callApi(c, "POST", `/v1/transactions/${id}/clear`, {});
  return afterAction(c, result, "Clearing sent.", `/dashboard/transactions/${id}`);
}

async function refundTransaction(c: RouteContext<"/transactions/:id/refund">) {
  const id = encodeURIComponent(c.req.param("id"));
  const f = await readForm(c);
  const result = await callApi(c, "POST", `/v1/transactions/${id}/refund`, compact({ amount: num(f, "amount") }));
  return afterAction(c, result, "Refund sent.", `/dashboard/transactions/${id}`);
}
