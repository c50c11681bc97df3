// Brands: adding one, from the form under the offer creation page, which the answer returns to.
import type { Hono } from "hono";
import { callApi, qs, type DashContext, type DashEnv } from "../context.ts";
import { afterAction } from "../actions.ts";
import { readForm, text } from "../form.ts";

export function mountBrands(dash: Hono<DashEnv>) {
  dash.post("/brands", addBrand);
}

async function addBrand(c: DashContext) {
  const f = await readForm(c);
  const result = await callApi(c, "POST", "/v1/brands", { name: text(f, "name") });
  return afterAction(c, result, "Brand added.", `/dashboard/offers/new${qs({ program: c.req.query("program") })}`);
}
