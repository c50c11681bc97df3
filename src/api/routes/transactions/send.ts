// Shared by the test-transaction routes: answer 201/200 with the recorded transaction, or 202 with
// its id when the qualifier has not recorded it within the wait.
import type { Context } from "hono";
import { z } from "@hono/zod-openapi";
import { PURCHASE_AMOUNT, purchaseAmount, purchaseDateTime } from "../../../domain/field-rules.ts";
import { LOCAL_DATE_TIME_PATTERN } from "../../../domain/local-dates.ts";
import { withRule } from "../../validation.ts";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import type { Sent } from "../../../services/simulator-control/index.ts";
import type { SimulatorControl } from "../../../services/simulator-control/index.ts";

/** A purchase or refund amount the networks carry (src/domain/field-rules.ts: purchaseAmount). */
export const purchaseAmountSchema = z
  .number()
  .superRefine(withRule(purchaseAmount))
  .openapi({
    description: `Greater than 0, at most ${PURCHASE_AMOUNT.max}, in whole cents (at most ${PURCHASE_AMOUNT.decimals} decimal places): the networks carry nothing finer.`,
    exclusiveMinimum: 0,
    maximum: PURCHASE_AMOUNT.max,
    example: 42.5,
  });

/** A purchase's local date-time the networks carry (src/domain/field-rules.ts: purchaseDateTime). */
export const purchaseDateTimeSchema = (description: string) =>
  z
    .string()
    .superRefine(withRule(purchaseDateTime))
    .openapi({ description, pattern: LOCAL_DATE_TIME_PATTERN, maxLength: 19 });

/** Real time the API waits for the qualifier before answering 202. */
const WAIT_MS = 5_000;

export const depsOf = (c: Context<AppEnv>) => ({
  ctx: ctxOf(c.var.runtime, c.var.caller),
  simulators: timedCommands(c),
  waitMs: WAIT_MS,
});

/** The simulators' control, timing the request's "api" hop: from its arrival to its command on the bus. */
function timedCommands(c: Context<AppEnv>): SimulatorControl {
  const { simulators, metrics } = c.var.runtime;
  const timed =
    <A extends unknown[], R>(send: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const published = await send(...args);
      metrics.hop("api", (performance.now() - c.var.receivedMs) / 1000);
      return published;
    };
  return {
    ...simulators,
    purchase: timed(simulators.purchase),
    clear: timed(simulators.clear),
    void: timed(simulators.void),
    refund: timed(simulators.refund),
    increment: timed(simulators.increment),
    expire: timed(simulators.expire),
  };
}

export function answer<S extends 200 | 201>(c: Context<AppEnv>, sent: Sent, done: S) {
  if (sent.transaction) return c.json(sent.transaction, done);
  return c.json({ id: sent.id, status: sent.accepted ? ("accepted" as const) : ("sent" as const) }, 202);
}
