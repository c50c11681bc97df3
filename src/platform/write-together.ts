// Writes of several services sent as one statement. Each service keeps its SQL and gives its write as a part:
// data-modifying CTEs over its own parameters, numbered from $1; the parts go out together, their parameters
// renumbered, as the CTEs of one statement. A round of writes then costs one statement (one turn on PGlite's
// one connection, one round trip on PostgreSQL) however many tables it touches, and is atomic on its own.
// Every part sees the database as the statement began: parts must not write the same rows, nor read what
// another part writes.
import type { Db } from "./db.ts";

export interface WritePart {
  /** `name as (…)`, each name unique to its part (prefixed with what it writes). */
  ctes: string[];
  params: unknown[];
  /** The CTE whose rows the part answers (as JSON objects); none when it answers nothing. */
  returns?: string;
}

/** Sends the parts (an undefined one has nothing to write) as one statement; each part's rows, in order. */
export async function writeTogether(db: Db, parts: (WritePart | undefined)[]): Promise<Record<string, unknown>[][]> {
  const ctes: string[] = [];
  const params: unknown[] = [];
  const answers: string[] = [];
  parts.forEach((part, i) => {
    if (!part) return;
    const offset = params.length;
    for (const cte of part.ctes) ctes.push(offset === 0 ? cte : cte.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`));
    params.push(...part.params);
    if (part.returns) answers.push(`(select coalesce(json_agg(r), '[]'::json) from ${part.returns} r) as part_${i}`);
  });
  if (ctes.length === 0) return parts.map(() => []);
  const [row] = await db.query<Record<string, Record<string, unknown>[]>>(`with ${ctes.join(",\n")}\nselect ${answers.length > 0 ? answers.join(", ") : "1"}`, params);
  return parts.map((part, i) => (part?.returns ? (row![`part_${i}`] ?? []) : []));
}
