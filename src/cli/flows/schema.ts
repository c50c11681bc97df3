// The flow file format: a flow is a name and steps; each step is one action on the /v1 API with an optional
// `expect` on its answer and on the webhooks it causes. The zod schemas here check a parsed file and are the
// source of the published JSON Schema (`run --schema`).
import { z } from "zod";
import { HOOK_EVENTS } from "../../services/webhooks/index.ts";

/** An action: the request it sends. Path parameters are taken from the step's object by name; the rest is the body. */
export interface Action {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  /** A body the action always sends (merged under the step's). */
  body?: Record<string, unknown>;
  description: string;
}

export const ACTIONS = {
  program: { method: "POST", path: "/v1/programs", description: "Create a program (POST /v1/programs); the runner registers its hooks on it." },
  brand: { method: "POST", path: "/v1/brands", description: "Create a brand (POST /v1/brands)." },
  "brand-consent": {
    method: "POST",
    path: "/v1/brands/{brandId}/consent",
    description: "Play the brand: decide a live brand's consent in the flow's sandbox (POST /v1/brands/{brandId}/consent), e.g. {brandId, decision: approved}.",
  },
  location: { method: "POST", path: "/v1/programs/{programId}/locations", description: "Add a location to a program." },
  card: { method: "POST", path: "/v1/programs/{programId}/cards", description: "Enrol a card in a program." },
  offer: { method: "POST", path: "/v1/offers", description: "Create an offer (POST /v1/offers)." },
  "update-offer": { method: "PATCH", path: "/v1/offers/{offerId}", description: "Change an offer (PATCH /v1/offers/{offerId}), e.g. a later endDate." },
  link: { method: "POST", path: "/v1/offers/{offerId}/locations/{locationId}", description: "Link a location to an offer." },
  activate: { method: "POST", path: "/v1/offers/{offerId}/cards/{cardId}", description: "Activate an activation offer on a card." },
  hook: { method: "POST", path: "/v1/programs/{programId}/hooks", description: "Register a hook of your own (the runner registers its own already)." },
  purchase: {
    method: "POST",
    path: "/v1/transactions/test",
    description:
      "A test purchase through the card's scheme simulator (POST /v1/transactions/test): `stage: clearing` for a clearing with no " +
      "authorisation; `autoClear: false` and `authExpiryDays` for an authorisation left to expire; `billingCurrency` for one billed abroad.",
  },
  increment: {
    method: "POST",
    path: "/v1/transactions/{transactionId}/increment",
    description: "An incremental authorisation of a test purchase: `amount` more authorised before it clears.",
  },
  clear: {
    method: "POST",
    path: "/v1/transactions/{transactionId}/clear",
    description:
      "Clear a test purchase (what is left, or `amount` of it — less, or more by a tip of up to 20%: such a clearing is a transaction of its own); " +
      "`duplicate: true` has the network send it twice.",
  },
  void: { method: "POST", path: "/v1/transactions/{transactionId}/void", description: "Void a test purchase." },
  expire: {
    method: "POST",
    path: "/v1/transactions/{transactionId}/expire",
    description: "The network withdraws a test purchase's authorisation now, as it does once left uncleared for its authExpiryDays.",
  },
  refund: { method: "POST", path: "/v1/transactions/{transactionId}/refund", description: "Refund a test purchase (all that is left, or `amount`)." },
  "missing-transaction-request": {
    method: "POST",
    path: "/v1/cards/{cardId}/missing-transaction-requests",
    description: "Ask the card's network for a transaction it did not send (test amounts 10.01–10.06 fail).",
  },
  sync: {
    method: "PATCH",
    path: "/v1/programs/{programId}",
    body: { status: "syncing" },
    description: "Start the live sync of a program's Idle locations (PATCH /v1/programs/{programId} {status: syncing}; live flows).",
  },
  "advance-clock": {
    method: "POST",
    path: "/v1/clock/advance",
    description:
      "Move the flow's sandbox's time forward (POST /v1/clock/advance): {days, hours, minutes, seconds} or {to: instant}; it answers once what fell due has run.",
  },
  get: { method: "GET", path: "{path}", description: "GET any path of the API, e.g. {path: /v1/transactions/${purchase.id}}." },
} as const satisfies Record<string, Action>;

export type ActionName = keyof typeof ACTIONS;
export const ACTION_NAMES = Object.keys(ACTIONS) as ActionName[];

/** The path parameters of an action's path, e.g. ["offerId", "locationId"]. */
export const pathParams = (action: Action): string[] => [...action.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

const stepId = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, "must be a name of letters, digits, _ and -, starting with a letter or _")
  .describe("A name for the step's answer, referenced by later steps as ${id.field}.")
  .meta({ id: "StepId" });

const duration = z
  .union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?(ms|s|m)$/, "must be a duration such as 500ms, 10s or 1m")])
  .describe("Seconds, or a duration such as 500ms, 10s or 1m.");

const fieldExpectations = z
  .record(z.string(), z.unknown())
  .describe(
    "Dotted paths into the JSON (e.g. offer.qualified, data.offer.cashback, items.0.id) and what each must be: a value " +
      "(deep equality, after ${…} references are resolved), or an operator object: $gt, $gte, $lt, $lte (numbers), " +
      "$contains (a string's substring or an array's element), $matches (a regular expression), $exists (true or false), $oneOf (a list).",
  )
  .meta({ id: "Fields" });

export const WebhookExpectationSchema = z
  .strictObject({
    event: z.enum(HOOK_EVENTS).describe("The event name."),
    count: z.number().int().min(0).default(1).describe("How many events of that name with those fields arrive (exactly; default 1). 0: none within `within`."),
    within: duration.optional().describe("How long to wait for them after the step's answer (default 10s; for count 0 the whole time, default 2s)."),
    fields: fieldExpectations.optional().describe("The fields each counted event has: events without them are not counted."),
  })
  .describe("Webhooks the step causes: delivered, signed, to the runner's own hook on the flow's program.")
  .meta({ id: "WebhookExpectation" });

export const ExpectSchema = z
  .strictObject({
    status: z.number().int().min(100).max(599).optional().describe("The answer's HTTP status (default: any 2xx)."),
    body: fieldExpectations.optional().describe("Fields of the answer's JSON body."),
    webhooks: z.array(WebhookExpectationSchema).optional(),
  })
  .describe("What the step's answer and the webhooks it causes must be; a failure names the step, the expectation and what arrived.")
  .meta({ id: "Expect" });

const actionArgs = (name: ActionName, action: Action) => {
  const params = pathParams(action);
  const shape = Object.fromEntries(params.map((p) => [p, z.string().min(1).describe(`The ${p} of the path ${action.path}.`)]));
  return z.looseObject(shape).describe(action.description + (params.length ? "" : ` Its fields are the request body.`) + ` (${name})`);
};

export const ACTION_SCHEMAS = Object.fromEntries(ACTION_NAMES.map((name) => [name, actionArgs(name, ACTIONS[name])])) as unknown as Record<
  ActionName,
  z.ZodType<Record<string, unknown>>
>;

const commonStep = {
  id: stepId.optional(),
  name: z.string().optional().describe("What the step does, for the report."),
  expect: ExpectSchema.optional(),
};

/** The step schema of one action: that action's key beside id, name and expect. */
export const STEP_SCHEMAS = Object.fromEntries(
  ACTION_NAMES.map((name) => [name, z.strictObject({ ...commonStep, [name]: ACTION_SCHEMAS[name] }).describe(`A ${name} step.`)]),
) as unknown as Record<ActionName, z.ZodType<Record<string, unknown>>>;

/** One step: exactly one action key beside id, name and expect. */
export const StepSchema = z
  .union(ACTION_NAMES.map((name) => STEP_SCHEMAS[name]))
  .describe("One action (exactly one of the action keys), with an optional id, name and expect.");

export const FlowSchema = z
  .strictObject({
    name: z.string().min(1).describe("The flow's name, for the report."),
    description: z.string().optional(),
    environment: z.enum(["test", "live"]).default("test").describe("Which environment of its sandbox the flow runs in: test (default) or live."),
    steps: z.array(StepSchema).min(1),
  })
  .describe(
    "A Cardlink flow: steps run in order against a running Cardlink's API. Strings may hold ${step.field} (a field of an " +
      "earlier step's answer), ${run} (a unique id of this run), ${now} (the sandbox's time, ISO 8601), ${today} (its date) " +
      "and ${days(N)} (its date N days on, as YYYY-MM-DDT00:00:00). A string that is one reference keeps the value's type.",
  );

export type WebhookExpectation = z.output<typeof WebhookExpectationSchema>;
export type Expectations = z.output<typeof ExpectSchema>;

export interface Step {
  id?: string | undefined;
  name?: string | undefined;
  action: ActionName;
  args: Record<string, unknown>;
  expect?: Expectations | undefined;
  /** Where the step starts in its file (1-based). */
  line: number;
}

export interface Flow {
  file: string;
  name: string;
  environment: "test" | "live";
  steps: Step[];
}

/** The published JSON Schema of a flow file (`cardlink run --schema`, flows/flow.schema.json). */
export function flowJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Cardlink flow",
    ...z.toJSONSchema(FlowSchema, { io: "input" }),
  };
}
