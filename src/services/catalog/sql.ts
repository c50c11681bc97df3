// SQL fragments over the catalog's tables for other features' statements, so a statement that also reads the catalog
// stays one statement while the catalog keeps the text that names its tables.

/** `select id from locations where program_id = ?`: the ids of a program's locations, for `… in (${LOCATIONS_OF_PROGRAM})`. One `?` placeholder: the program id. */
export const LOCATIONS_OF_PROGRAM = "select id from locations where program_id = ?";

/**
 * `from locations l where …`: a brand's locations in one country of a program, account and environment, as the tail of
 * an `insert … select …, l.id, … ` (the caller names `l.id`). Each argument is the placeholder that holds that value.
 */
export const brandLocationsSql = (p: { program: string; account: string; live: string; brand: string; country: string }): string =>
  `from locations l
     where l.program_id = ${p.program} and l.account_id = ${p.account} and l.live = ${p.live} and l.brand_id = ${p.brand} and l.country_code = ${p.country}`;

/** `select id from programs where …`: the caller's program (one row, or none). Each argument is the placeholder of the program id, account id and environment. */
export const callerProgramSql = (program: string, account: string, live: string): string =>
  `select id from programs where id = ${program} and account_id = ${account} and live = ${live}`;

/** A scalar subquery: the name of the program whose id is in `column`. */
export const programNameSql = (column: string): string => `(select p.name from programs p where p.id = ${column})`;

/** A scalar subquery: the MIDs (jsonb array, or null) of the location in `location` at the network in `scheme`; one row per (location, scheme). */
export const networkMidsSql = (location: string, scheme: string): string =>
  `(select n.mids from location_networks n where n.location_id = ${location} and n.scheme = ${scheme})`;
