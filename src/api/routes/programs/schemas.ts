// The program record as the API shows it.
import { z } from "@hono/zod-openapi";
import { metadataSchema, trimmedText } from "../../schemas.ts";

export const ProgramSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: "Rewards UK" }),
    live: z.boolean(),
    status: z.enum(["idle", "syncing"]).openapi({ description: "`syncing` while a location sync runs." }),
    sync: z
      .object({
        id: z.uuid(),
        status: z.enum(["running", "completed"]),
        started: z.string().openapi({ format: "date-time" }),
        ended: z.string().nullable().openapi({ format: "date-time", description: "When the last network answer came; null while running." }),
        locations: z.number().int().openapi({ description: "Locations in the sync (Idle when it started, or created with status syncing)." }),
        requests: z
          .object({ total: z.number().int(), pending: z.number().int(), active: z.number().int(), notFound: z.number().int() })
          .openapi({ description: "Onboarding requests, one per location and scheme: waiting for the network, Active, Not found." }),
      })
      .nullable()
      .openapi("ProgramSync", {
        description: "The program's latest location sync (the running one while status is syncing); null before the first.",
      }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Program");

export const programName = trimmedText(200);
export { metadataSchema };
