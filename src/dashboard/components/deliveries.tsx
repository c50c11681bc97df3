// A record's webhook deliveries as a table, each with its attempts and a redeliver button: on a hook's
// page and on a transaction's.
import type { Delivery } from "../../services/webhooks/index.ts";
import { ActionButton, Table } from "../layout.tsx";
import { StatusBadge } from "../statuses.tsx";
import { when } from "./when.ts";

/** Deliveries with their attempts; `back` is the page a redelivery returns to. */
export function DeliveryTable({ deliveries, back }: { deliveries: Delivery[]; back: string }) {
  if (deliveries.length === 0) return <p>No deliveries yet (a hook for the event must exist when it happens).</p>;
  return (
    <Table caption="Deliveries, newest first" head={["Event", "Status", "Attempts (code, latency, when — service time)", "Next retry (service time)", ""]}>
      {deliveries.map((d) => (
        <tr data-delivery={d.id}>
          <td>
            {d.event}
            <br />
            <small>event {d.eventId}</small>
          </td>
          <td>
            <StatusBadge status={d.status} />
          </td>
          <td>
            <ul class="attempts">
              {d.attempts.map((a) => (
                <li>
                  #{a.attempt}: {a.responseCode ?? a.error ?? "no answer"}, {a.latencyMs} ms, {when(a.attempted)}
                </li>
              ))}
            </ul>
          </td>
          <td>{d.nextAttempt ? when(d.nextAttempt) : "—"}</td>
          <td>
            <ActionButton action={`/dashboard/webhook-events/${d.eventId}/redeliver`} label="Redeliver" fields={{ back }} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
