// The dry run of one scheme's simulator (`cardlink simulate`): the native messages it would publish, one
// JSON a line, from the engine's generator and the scheme's adapter. No bus, no database, no wall clock.
import { DRY_RUN_DEFAULTS, dryRun, type DryRunOptions } from "../engine/dry-run.ts";
import { ADAPTERS } from "../schemes/index.ts";
import type { Scheme } from "../engine/types.ts";

export { DRY_RUN_DEFAULTS, type DryRunOptions };

export const dryRunOf = (scheme: Scheme, options: DryRunOptions): string => dryRun(ADAPTERS[scheme], options);
