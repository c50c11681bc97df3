// Mounts every /v1 resource.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context.ts";
import { router } from "../router.ts";
import { mountPrograms } from "./programs/index.ts";
import { mountMidInsights } from "./mid-insights/index.ts";
import { mountBrands } from "./brands/index.ts";
import { mountCards } from "./cards/index.ts";
import { mountLocations } from "./locations/index.ts";
import { mountHooks } from "./hooks/index.ts";
import { mountOffers } from "./offers/index.ts";
import { mountMarketplaceOffers } from "./marketplace-offers/index.ts";
import { mountWebhookEvents } from "./webhook-events/index.ts";
import { mountTransactions } from "./transactions/index.ts";
import { mountMissingTransactionRequests } from "./missing-transaction-requests/index.ts";
import { mountTrigger } from "./trigger/index.ts";
import * as account from "./account/get.ts";
import { mountSandboxes } from "./sandboxes/index.ts";
import { mountEnvironmentClock } from "./clock/index.ts";
import { mountRequests } from "./requests/index.ts";

export function mountV1(app: OpenAPIHono<AppEnv>) {
  const v1 = router();
  mountPrograms(v1);
  mountMidInsights(v1);
  mountBrands(v1);
  mountCards(v1);
  mountLocations(v1);
  mountHooks(v1);
  mountOffers(v1);
  mountMarketplaceOffers(v1);
  mountWebhookEvents(v1);
  mountTransactions(v1);
  mountMissingTransactionRequests(v1);
  mountTrigger(v1);
  mountSandboxes(v1);
  mountEnvironmentClock(v1);
  mountRequests(v1);
  v1.openapi(account.route, account.handler);
  app.route("/v1", v1);
}
