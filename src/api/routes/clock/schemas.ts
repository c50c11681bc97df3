// How a clock is moved, for the operator's service clock and a sandbox's own alike.
import { z } from "@hono/zod-openapi";
import { LATEST_SERVICE_TIME, MAX_ADVANCE_DAYS } from "../../../platform/clock/index.ts";

const unit = (name: string, perDay: number) =>
  z
    .number()
    .min(0, "must be 0 or more")
    .max(MAX_ADVANCE_DAYS * perDay, `must be at most ${MAX_ADVANCE_DAYS * perDay} (${MAX_ADVANCE_DAYS} days) at a time`)
    .optional()
    .openapi({ description: `${name}, 0 to ${MAX_ADVANCE_DAYS * perDay}.` });

export const units = { days: unit("Days", 1), hours: unit("Hours", 24), minutes: unit("Minutes", 1440), seconds: unit("Seconds", 86_400) };

export const ClockAdvanceSchema = z.strictObject(units).openapi("ClockAdvance", {
  example: { days: 4 },
  description:
    `Give at least one unit greater than 0. Each unit moves at most ${MAX_ADVANCE_DAYS} days, and ` +
    `time never passes ${LATEST_SERVICE_TIME.toISOString()} (400 naming the field).`,
});
