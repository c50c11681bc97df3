// POST /admin/accounts and PATCH /admin/accounts/{id}: the operator creates accounts and sets tiers.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { commonErrors, emailAddress, jsonBody, jsonResponse, listOf, pageQuery, trimmedText, uuid } from "../../schemas.ts";
import { createAccount, listAccounts, updateAccount } from "../../../services/accounts/index.ts";

const tier = z.enum(["standard", "premium"], { message: "must be standard or premium" });

const AccountSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    tier,
    email: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .openapi("Account");

const AccountWithKeysSchema = AccountSchema.extend({
  keys: z.object({
    test: z.string().openapi({ example: "sk_test_8fJ2kQ…" }),
    live: z.string().openapi({ example: "sk_live_3mZp7R…" }),
  }),
}).openapi("AccountWithKeys", { description: "The keys are shown once; only their digests are kept." });

const create = createRoute({
  method: "post",
  path: "/accounts",
  tags: ["Admin"],
  summary: "Create an account with test and live secret keys",
  security: [{ AdminToken: [] }],
  request: {
    body: jsonBody(
      z.strictObject({
        name: trimmedText(200),
        tier: tier.default("standard"),
        email: emailAddress.optional(),
      }),
    ),
  },
  responses: { 201: jsonResponse(AccountWithKeysSchema, "The account and its keys."), ...commonErrors },
});

const update = createRoute({
  method: "patch",
  path: "/accounts/{accountId}",
  tags: ["Admin"],
  summary: "Change an account's tier or name",
  security: [{ AdminToken: [] }],
  request: {
    params: z.object({ accountId: uuid("accountId") }),
    body: jsonBody(z.strictObject({ tier: tier.optional(), name: trimmedText(200).optional() })),
  },
  responses: { 200: jsonResponse(AccountSchema, "The account."), ...commonErrors },
});

const list = createRoute({
  method: "get",
  path: "/accounts",
  tags: ["Admin"],
  summary: "List accounts, newest first",
  security: [{ AdminToken: [] }],
  request: { query: pageQuery },
  responses: { 200: jsonResponse(listOf(AccountSchema, "AccountList"), "A page of accounts (never their keys)."), ...commonErrors },
});

export function mountAccounts(r: OpenAPIHono<AppEnv>) {
  r.openapi(list, async (c) => {
    const { limit = 100, start } = c.req.valid("query");
    return c.json(await listAccounts(c.var.runtime.db, { limit, start }), 200);
  });
  r.openapi(create, async (c) => {
    const { db, clock } = c.var.runtime;
    return c.json(await createAccount(db, c.req.valid("json"), clock.now()), 201);
  });
  r.openapi(update, async (c) => {
    const { db, clock } = c.var.runtime;
    const { accountId } = c.req.valid("param");
    const account = await updateAccount(db, accountId, c.req.valid("json"), clock.now());
    if (!account) throw notFound("account", accountId);
    return c.json(account, 200);
  });
}
