// Offer routes.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import * as create from "./create.ts";
import * as list from "./list.ts";
import * as get from "./get.ts";
import * as update from "./update.ts";
import * as remove from "./delete.ts";
import * as linkLocation from "./link-location.ts";
import * as linkProgramLocations from "./link-program-locations.ts";
import * as unlinkLocation from "./unlink-location.ts";
import * as activateCard from "./activate-card.ts";
import * as deactivateCard from "./deactivate-card.ts";
import * as listCards from "./list-cards.ts";
import * as submitTransaction from "./submit-transaction.ts";

export function mountOffers(r: OpenAPIHono<AppEnv>) {
  r.openapi(create.route, create.handler);
  r.openapi(list.route, list.handler);
  r.openapi(get.route, get.handler);
  r.openapi(update.route, update.handler);
  r.openapi(remove.route, remove.handler);
  r.openapi(linkLocation.route, linkLocation.handler);
  r.openapi(linkProgramLocations.route, linkProgramLocations.handler);
  r.openapi(unlinkLocation.route, unlinkLocation.handler);
  r.openapi(activateCard.route, activateCard.handler);
  r.openapi(deactivateCard.route, deactivateCard.handler);
  r.openapi(listCards.route, listCards.handler);
  r.openapi(submitTransaction.route, submitTransaction.handler);
}
