// The program record as the API shows it.
import { z } from "@hono/zod-openapi";
import { metadataSchema } from "../../schemas.ts";

export const ProgramSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: "Rewards UK" }),
    live: z.boolean(),
    status: z.enum(["idle", "syncing"]).openapi({ description: "`syncing` while a location sync runs." }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Program");

export const programName = z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters");
export { metadataSchema };
