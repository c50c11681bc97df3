// Webhook events as rows of a table: on the Events page and on a request's page (the events it caused).
import type { WebhookEvent } from "../../services/webhooks/index.ts";
import type { DashContext } from "../context.ts";
import { timeOf } from "../session.ts";
import { StatusBadge } from "../statuses.tsx";
import { when } from "./when.ts";

/** One event as a row under eventHead: when, event, status, its deliveries, its transaction, a link to its page. */
export const EventRow = ({ e }: { e: WebhookEvent }) => (
  <tr data-event={e.id}>
    <td>{when(e.created)}</td>
    <td>{e.event}</td>
    <td>
      <StatusBadge status={e.status} />
    </td>
    <td>
      {e.deliveries.length === 0
        ? "—"
        : e.deliveries.map((d) => `${d.status} (${d.attemptCount} attempt${d.attemptCount === 1 ? "" : "s"}${d.lastResponseCode ? `, ${d.lastResponseCode}` : ""})`).join("; ")}
    </td>
    <td>{e.transactionId ? <a href={`/dashboard/transactions/${e.transactionId}`}>{e.transactionId.slice(0, 8)}</a> : "—"}</td>
    <td>
      <a href={`/dashboard/events/${e.id}`} aria-label={`Open event ${e.event} ${e.id}`}>
        Open
      </a>
    </td>
  </tr>
);

/** The head of a table of EventRow, its times named for the session's clock. */
export const eventHead = (c: DashContext) => [`When (${timeOf(c.var.session).time})`, "Event", "Status", "Deliveries", "Transaction", ""];
