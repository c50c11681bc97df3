// PATCH /programs/{programId} — rename, set metadata, or start the sync of all idle locations.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { updateProgram } from "../../../services/catalog/index.ts";
import { ProgramSchema, metadataSchema, programName } from "./schemas.ts";

const body = z
  .strictObject({
    name: programName.optional(),
    metadata: metadataSchema,
    status: z.literal("syncing", { message: "the only value is syncing" }).optional().openapi({
      description:
        "`syncing` starts the sync of every Idle location of the program with the networks. Live programs " +
        "and live keys only (a test key gets 400); one sync per program at a time (409 while one runs).",
    }),
  })
  .openapi("ProgramUpdate", { example: { status: "syncing" } });

export const route = createRoute({
  method: "patch",
  path: "/programs/{programId}",
  tags: ["Programs"],
  summary: "Update a program or start its location sync",
  request: { params: z.object({ programId: uuid("programId") }), body: jsonBody(body) },
  responses: {
    200: jsonResponse(ProgramSchema, "The program."),
    ...commonErrors,
    400: invalidWhen(["status syncing: on a test program or under a test key"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await updateProgram(ctxOf(c.var.services, c.var.caller), c.req.valid("param").programId, c.req.valid("json")),
    200,
  );
