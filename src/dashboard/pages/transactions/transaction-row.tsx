// A transaction as a row of the feed (the list, and each row the live feed sends) and its offer result
// in words, which its own page shows too.
import { Badge, money } from "../../layout.tsx";
import type { Transaction } from "../../../services/transactions/index.ts";

export const stageOf = (t: Transaction) => (t.type === "refund" ? "refund" : t.expired ? "expired" : t.cleared ? "clearing" : "auth");

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
