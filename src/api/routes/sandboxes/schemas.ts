// The sandbox as the API shows it, and who may manage sandboxes.
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors.ts";
import { errorResponse } from "../../schemas.ts";
import type { Caller } from "../../context.ts";

export const EnvironmentClockSchema = z
  .object({
    now: z.string().openapi({ format: "date-time", description: "The sandbox's time.", example: "2026-11-28T12:00:00.000Z" }),
    frozen: z.boolean().openapi({ description: "Frozen: time moves only when advanced (by the sandbox's key, or the operator's advance of every environment)." }),
  })
  .openapi("SandboxClock");

export const SandboxSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    clock: EnvironmentClockSchema,
    expiresAt: z.string().openapi({ format: "date-time", description: "When the workers delete it (service time)." }),
    created: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Sandbox");

/** The answer to a sandbox's own key on a route of the account's. */
export const forbiddenToSandboxes = { 403: errorResponse("forbidden: a sandbox's key cannot manage sandboxes; use the key of the account that owns it.") };

/** Sandboxes are made, listed and deleted with the account's own key, never a sandbox's (403). */
export function owner(caller: Caller): string {
  if (caller.parentId) {
    throw new ApiError("forbidden", "A sandbox's key cannot manage sandboxes: use the key of the account that owns it.");
  }
  return caller.account.id;
}
