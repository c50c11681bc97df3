// The operator surface under /admin (Authorization: Bearer $ADMIN_TOKEN).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { router } from "../../router.ts";
import { mountAccounts } from "./accounts.ts";
import { mountKeys } from "./keys.ts";
import { mountClock } from "./clock.ts";
import { mountSimulatorFaults } from "./simulators-faults.ts";
import { mountSimulatorTraffic } from "./simulators-traffic.ts";
import { mountMidInsightSeed } from "./mid-insights.ts";
import { mountBrandConsent } from "./brand-consent.ts";
import { mountMarketplaceOffers } from "./marketplace-offers.ts";

export function mountAdmin(app: OpenAPIHono<AppEnv>) {
  const admin = router();
  mountAccounts(admin);
  mountKeys(admin);
  mountClock(admin);
  mountSimulatorFaults(admin);
  mountSimulatorTraffic(admin);
  mountMidInsightSeed(admin);
  mountBrandConsent(admin);
  mountMarketplaceOffers(admin);
  app.route("/admin", admin);
}
