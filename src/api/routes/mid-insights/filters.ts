// The MID insight filters, shared by the list's query parameters and an export's `filters`: each
// invalid value is a 400 naming the parameter and its rule.
import { z } from "@hono/zod-openapi";
import {
  DATE_BOUND_MAX_LENGTH,
  DATE_BOUND_PATTERN,
  DATE_BOUND_RULE,
  IDENTIFIER_RULES,
  ORIGINS,
  SORT_FIELDS,
  STATUS_FILTER_VALUES,
  parseDateBound,
} from "../../../domain/mid-insights.ts";
import type { MidInsightFilters } from "../../../services/mid-insights/index.ts";

const EXAMPLE_ID = "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b";

const uuidFilter = (description: string) =>
  z.uuid({ message: "must be a UUID" }).optional().openapi({ description, example: EXAMPLE_ID });

const dateBound = (edge: "from" | "to", description: string) =>
  z
    .string()
    .refine((v) => parseDateBound(v, edge) !== undefined, DATE_BOUND_RULE)
    .optional()
    .openapi({ description, example: edge === "from" ? "2025-12-01" : "2025-12-31T23:59:59Z", pattern: DATE_BOUND_PATTERN, maxLength: DATE_BOUND_MAX_LENGTH });

// The pattern bounds the length; the document states that bound as maxLength too.
const digitsFilter = (pattern: RegExp, rule: string, maxLength: number, description: string, example: string) =>
  z.string().regex(pattern, rule).optional().openapi({ description, example, maxLength });

const exactFilter = (description: string, example: string) =>
  z
    .string()
    .min(1, "must not be empty")
    .max(64, "must be at most 64 characters")
    .optional()
    .openapi({ description, example });

/** The filters' rule between fields, in words (the 400s of the list and of exports name it). */
export const DATE_BOUNDS_ORDER_RULE = "lastSeenTransactionDateFrom: after lastSeenTransactionDateTo";

export const filterShape = {
  brandId: uuidFilter("Only insights of this brand."),
  id: uuidFilter("Only the insight with this id."),
  locationId: uuidFilter("Only insights of MIDs at this location."),
  midId: uuidFilter("Only the insight of this MID record."),
  lastSeenTransactionDateFrom: dateBound(
    "from",
    "Only insights whose lastSeenTransactionDate is on or after this ISO 8601 date or date-time. A date " +
      "starts at 00:00:00.000 UTC; a date-time without a zone is UTC. Insights with no transaction seen are excluded.",
  ),
  lastSeenTransactionDateTo: dateBound(
    "to",
    "Only insights whose lastSeenTransactionDate is on or before this ISO 8601 date or date-time. A date " +
      "includes its whole UTC day (to 23:59:59.999).",
  ),
  origin: z
    .enum(ORIGINS, { message: `must be one of ${ORIGINS.join(", ")}` })
    .optional()
    .openapi({ description: "Only insights of MIDs sourced this way.", example: "address-match" }),
  status: z
    .enum(STATUS_FILTER_VALUES, { message: "must be onboarded or offboarded" })
    .optional()
    .openapi({ description: "Only insights in this status.", example: "onboarded" }),
  seNumber: digitsFilter(
    IDENTIFIER_RULES.seNumber.pattern,
    IDENTIFIER_RULES.seNumber.rule,
    10,
    "Amex service establishment number: exactly 10 digits.",
    "1234567890",
  ),
  vmid: digitsFilter(IDENTIFIER_RULES.vmid.pattern, IDENTIFIER_RULES.vmid.rule, 8, "Visa merchant id: 6 to 8 digits.", "12345678"),
  mcAcquiringMid: exactFilter("Mastercard acquiring MID, exact.", "402911000120034"),
  mcLocationId: exactFilter("Mastercard location id, exact.", "184736291"),
  visaAcquiringMid: exactFilter("Visa acquiring merchant id (CAID), exact.", "000923847561023"),
  visaBin: exactFilter("Visa acquirer BIN, exact.", "426684"),
  vsid: exactFilter("Visa store id, exact.", "48213377"),
};

export const sortParam = z
  .enum(SORT_FIELDS, { message: `must be one of ${SORT_FIELDS.join(", ")}` })
  .optional()
  .openapi({
    description:
      "Field to sort by (default created). eventTs is the time of the latest event on the insight: sourcing, " +
      "onboarding, an offboard request, offboarding or a transaction seen; updated is when the record last " +
      "changed. Insights without a value of a timestamp field sort after all others ascending, first descending. " +
      "origin, status and scheme sort alphabetically. Ties are broken by id.",
    example: "lastSeenTransactionDate",
  });

export const orderParam = z
  .enum(["asc", "desc"], { message: "must be asc or desc" })
  .optional()
  .openapi({ description: "Sort direction (default desc).", example: "desc" });

type FilterInput = { [K in keyof typeof filterShape]?: z.infer<(typeof filterShape)[K]> };

/** The date range must not be inverted; a refinement over the parsed object. */
export function checkDateRange(value: FilterInput, ctx: z.RefinementCtx, path: (string | number)[] = []) {
  const { lastSeenTransactionDateFrom: from, lastSeenTransactionDateTo: to } = value;
  if (from && to && parseDateBound(from, "from")! > parseDateBound(to, "to")!) {
    ctx.addIssue({
      code: "custom",
      path: [...path, "lastSeenTransactionDateFrom"],
      message: "must not be after lastSeenTransactionDateTo",
    });
  }
}

/** Only the filters that were given, as the caller wrote them (an export records them). */
export const givenFilters = (input: FilterInput): Record<string, string> =>
  Object.fromEntries(
    Object.keys(filterShape).flatMap((k) => {
      const value = input[k as keyof FilterInput];
      return value === undefined ? [] : [[k, value]];
    }),
  );

/** The validated parameters as the store's filters. */
export function toFilters(input: FilterInput): MidInsightFilters {
  const { lastSeenTransactionDateFrom: from, lastSeenTransactionDateTo: to, ...exact } = givenFilters(input);
  // The values passed the schema, so the enums hold their enum values.
  return {
    ...(exact as MidInsightFilters),
    ...(from ? { lastSeenFrom: parseDateBound(from, "from")! } : {}),
    ...(to ? { lastSeenTo: parseDateBound(to, "to")! } : {}),
  };
}
