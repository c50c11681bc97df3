// GET /account — who the key belongs to: the account id offers name as publisherId, the tier, the environment.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, jsonResponse } from "../../schemas.ts";

const AccountSchema = z
  .object({
    id: z.uuid().openapi({ description: "Your account id: offers take it as `publisherId`." }),
    name: z.string(),
    tier: z.enum(["standard", "premium"]).openapi({ description: "MID insights need premium." }),
    live: z.boolean().openapi({ description: "The environment of the key you sent." }),
  })
  .openapi("CallerAccount");

export const route = createRoute({
  method: "get",
  path: "/account",
  tags: ["Account"],
  summary: "The account and environment of your key",
  responses: { 200: jsonResponse(AccountSchema, "Your account."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = (c) => {
  const { account, live } = c.var.caller;
  return c.json({ id: account.id, name: account.name, tier: account.tier, live }, 200);
};
