// What the offers pages share: the groups and their tabs, whose offers a group lists, and an offer's
// reward and days in words.
import { qs } from "../../context.ts";
import type { Offer } from "../../../services/offers/index.ts";

export const GROUPS = [
  ["requests", "Requests"],
  ["upcoming", "Upcoming"],
  ["live", "Live"],
  ["expiring", "Expiring soon"],
  ["expired", "Expired"],
  ["marketplace", "Marketplace"],
] as const;
export type Group = (typeof GROUPS)[number][0];

export const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export const reward = (o: Pick<Offer, "type" | "currency">) =>
  o.type.name === "discount"
    ? `${o.type.value}%${o.type.maxRewardAmount ? ` up to ${o.type.maxRewardAmount} ${o.currency}` : ""}`
    : `${o.type.value} ${o.currency}`;

/**
 * Whose offers a group lists: the program's (linked to one of its locations, or added to it from the
 * marketplace; the API's `programId` filter), or the whole account's, which includes offers linked to no
 * location yet. The program's is the default: the switcher above names a program.
 */
export type Scope = "program" | "account";

export function GroupNav({ group, program, scope }: { group: Group | undefined; program: string | undefined; scope?: Scope | undefined }) {
  return (
    <nav aria-label="Offer groups" class="tabs">
      <ul>
        {GROUPS.map(([g, label]) => (
          <li>
            <a href={`/dashboard/offers${qs({ group: g, program, scope: scope === "account" ? scope : undefined })}`} aria-current={g === group ? "page" : undefined}>
              {label}
            </a>
          </li>
        ))}
        <li>
          <a href={`/dashboard/offers/new${qs({ program })}`} aria-current={group === undefined ? "page" : undefined}>
            Create an offer
          </a>
        </li>
      </ul>
    </nav>
  );
}
