// PATCH /programs/{programId} — rename, set metadata, or start the sync of all idle locations.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, errorResponse, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { updateProgram } from "../../../services/catalog/index.ts";
import { ProgramSchema, metadataSchema, programName } from "./schemas.ts";

const body = z
  .strictObject({
    name: programName.optional(),
    metadata: metadataSchema,
    status: z.literal("syncing", { message: "the only value is syncing" }).optional().openapi({
      description:
        "`syncing` starts the sync of every Idle location of the program with the networks, which answer within 1 to 2 weeks " +
        "of service time; one sync per program at a time (409 while one runs). In test, where locations are onboarded at " +
        "their creation, the test networks answer a sync at once: it takes the program's locations as they stand and has " +
        "ended when the answer comes. Each move of the program's status is a `program.status` event (syncing, then idle).",
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
    409: errorResponse("conflict: `status: syncing` while a sync of the program runs (the error names it and what it waits for)."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await updateProgram(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").programId, c.req.valid("json")),
    200,
  );
