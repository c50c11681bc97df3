// POST /programs/{programId}/hooks — register a webhook endpoint for one event.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { rule } from "../../validation.ts";
import { createHook, isSigningSecret } from "../../../services/webhooks/index.ts";
import { getProgram } from "../../../services/catalog/index.ts";
import { hookEvent, HookWithSecretSchema } from "./schemas.ts";

const body = z
  .strictObject({
    event: hookEvent,
    url: z
      .url({ protocol: /^https?$/, ...rule("must be an http or https URL") })
      .max(2048, "must be at most 2048 characters")
      .openapi({
        description:
          "Where deliveries are POSTed; http or https, without credentials (`user:password@` is refused: deliveries are " +
          "authenticated by their signature). The host must be one the webhook target policy allows (`WEBHOOK_TARGETS`): " +
          "under `local` (the default of `npm start`) public, loopback and private addresses; under `public` (the default " +
          "in docker compose and whenever `HOST` is not loopback) public unicast addresses only. Link-local, cloud " +
          "metadata (169.254.169.254, metadata.google.internal, fd00:ec2::254, …), 0.0.0.0/8, multicast, broadcast and " +
          "every numeric, IPv4-mapped or NAT64 form of them are refused in every mode. A name is checked again on the " +
          "addresses it resolves to at each delivery; a refused delivery is a failed attempt saying so.",
        example: "https://example.com/webhooks",
      }),
    secret: z
      .string()
      .max(94, "must be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 random bytes")
      .refine(isSigningSecret, "must be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 random bytes")
      .optional()
      .openapi({
        description:
          "The signing secret to sign this hook's deliveries with (`whsec_` + base64 of 24–64 bytes, per Standard Webhooks), " +
          "so several hooks can share one secret (as `cardlink listen` does). Made at random when left out.",
        example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=",
      }),
  })
  .openapi("HookCreate", { example: { event: "location.status", url: "https://example.com/webhooks" } });

export const route = createRoute({
  method: "post",
  path: "/programs/{programId}/hooks",
  tags: ["Hooks"],
  summary: "Register a webhook",
  description:
    "Registers `url` for one event of the program and returns the hook with its signing secret (the `secret` given, " +
    "or a new random one) — the only answer besides `GET /hooks/{hookId}/secret` that carries it. A `url` the webhook " +
    "target policy refuses answers 400 `invalid_request` naming `url` and the rule. A program has at most 50 hooks: " +
    "the 51st answers 409 `conflict`.",
  middleware: [ownedBy("programId", getProgram)] as const,
  request: { params: z.object({ programId: uuid("programId") }), body: jsonBody(body) },
  responses: { 201: jsonResponse(HookWithSecretSchema, "The hook and its signing secret."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await createHook(
      ctxOf(c.var.runtime, c.var.caller),
      c.req.valid("param").programId,
      c.req.valid("json"),
      c.var.runtime.config.WEBHOOK_TARGETS,
    ),
    201,
  );
