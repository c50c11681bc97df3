// SQL fragments over the accounts table for other features' statements, so such a statement stays one statement while
// accounts keeps the text that names its table.

/** A condition: the account whose id is in `column` exists (a sandbox deleted meanwhile does not). */
export const accountExistsSql = (column: string): string => `exists (select 1 from accounts a where a.id = ${column})`;
