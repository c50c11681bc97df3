// The fixtures of `cardlink trigger` and the answer of a trigger.
import { z } from "@hono/zod-openapi";

export const FixturesSchema = z
  .object({
    programId: z.uuid(),
    brandId: z.uuid(),
    locationId: z.uuid(),
    cardId: z.uuid(),
    offerId: z.uuid(),
  })
  .openapi("TriggerFixtures", {
    description:
      "The fixtures program of your test environment (metadata `{\"cardlinkFixtures\": true}`): a brand, a location Active on " +
      "every scheme, a Visa test card and a live offer (10% off from 5.00 GBP) linked to the location.",
  });
