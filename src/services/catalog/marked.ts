// Finding the catalog records a caller marked in their metadata: the oldest program, brand, location or card
// carrying the mark, for fixtures made once and reused after.
import type { Scheme } from "../../domain/scheme.ts";
import type { Ctx } from "../../platform/context.ts";

/** The kinds of catalog record a mark can be looked for on, by their table. */
const TABLES = { program: "programs", brand: "brands", location: "locations", card: "cards" } as const;

/** The id of the caller's oldest record of that kind whose metadata holds `mark`, in a program (and of a scheme) when given. */
export async function findMarked(
  ctx: Ctx,
  kind: keyof typeof TABLES,
  mark: Record<string, unknown>,
  scope: { programId?: string; scheme?: Scheme } = {},
): Promise<string | undefined> {
  const params: unknown[] = [ctx.accountId, ctx.live, JSON.stringify(mark)];
  const and = (column: string, value: string | undefined) => (value === undefined ? "" : `and ${column} = $${params.push(value)}`);
  const [row] = await ctx.db.query<{ id: string }>(
    `select id from ${TABLES[kind]} where account_id = $1 and live = $2 and metadata @> $3::jsonb
     ${and("program_id", scope.programId)} ${and("scheme", scope.scheme)} order by created, id limit 1`,
    params,
  );
  return row?.id;
}
