// Keyset pages over one table, newest first, with the total count that matches the filters.
import type { Db } from "./db.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";

export interface Page<T> {
  items: T[];
  count: number;
  last?: string;
}

export interface PageQuery {
  limit: number;
  start?: string;
}

/** A growing WHERE clause whose values are always bound parameters. */
export class Filters {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];
  /** Adds `sql` with `?` standing for the next parameter. */
  add(sql: string, ...values: unknown[]): this {
    let text = sql;
    for (const v of values) {
      this.params.push(v);
      text = text.replace("?", `$${this.params.length}`);
    }
    this.clauses.push(text);
    return this;
  }
  where(): string {
    return this.clauses.length ? `where ${this.clauses.join(" and ")}` : "";
  }
}

export async function pageByCreated<Row extends { created: Date; id: string }, T>(
  db: Db,
  table: string,
  filters: Filters,
  page: PageQuery,
  map: (row: Row) => T,
): Promise<Page<T>> {
  const countText = `select count(*)::int as count from ${table} ${filters.where()}`;
  const [{ count } = { count: 0 }] = await db.query<{ count: number }>(countText, filters.params);
  const keyed = new Filters();
  keyed.clauses.push(...filters.clauses);
  keyed.params.push(...filters.params);
  if (page.start) {
    const [created, id] = decodeCursor(page.start);
    keyed.add("(created, id) < (?::timestamptz, ?::uuid)", created, id);
  }
  const rows = await db.query<Row>(
    `select * from ${table} ${keyed.where()} order by created desc, id desc limit ${page.limit + 1}`,
    keyed.params,
  );
  const more = rows.length > page.limit;
  const items = rows.slice(0, page.limit);
  const lastRow = items.at(-1);
  return {
    items: items.map(map),
    count,
    ...(more && lastRow ? { last: encodeCursor([lastRow.created.toISOString(), lastRow.id]) } : {}),
  };
}
