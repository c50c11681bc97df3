// One row's SQL from its columns by name: the `insert into <table>` of a row, and the `set` list of an update,
// each casting the columns the caller names to jsonb (their values come as JSON text, as both engines take them).

export interface SqlRowOptions {
  /** The columns whose values are JSON text, cast to jsonb. */
  jsonb?: ReadonlySet<string>;
}

const caster = (jsonb: ReadonlySet<string>) => (column: string) => (jsonb.has(column) ? "::jsonb" : "");

/** `insert into <table>` of one row given by column name; `tail` is what the caller adds after it (`returning *`). */
export function insertRow(table: string, row: Record<string, unknown>, { jsonb = new Set(), tail = "" }: SqlRowOptions & { tail?: string } = {}): [string, unknown[]] {
  const cast = caster(jsonb);
  const columns = Object.keys(row);
  const placeholders = columns.map((c, i) => `$${i + 1}${cast(c)}`).join(", ");
  return [`insert into ${table} (${columns.join(", ")}) values (${placeholders})${tail ? ` ${tail}` : ""}`, Object.values(row)];
}

/** `a = $from, b = $from+1::jsonb, …` for an update of the row's columns, its values in `Object.values(row)` order. */
export function setClause(row: Record<string, unknown>, { jsonb = new Set(), from = 1 }: SqlRowOptions & { from?: number } = {}): string {
  const cast = caster(jsonb);
  return Object.keys(row)
    .map((c, i) => `${c} = $${i + from}${cast(c)}`)
    .join(", ");
}
