// Cards: enrolling one in the program, from the form on the Transactions page, which the answer returns to.
import type { Hono } from "hono";
import { callApi, qs, type DashContext, type DashEnv } from "../context.ts";
import { afterAction } from "../actions.ts";
import { compact, num, readForm, text } from "../form.ts";

export function mountCards(dash: Hono<DashEnv>) {
  dash.post("/cards", enrolCard);
}

async function enrolCard(c: DashContext) {
  const f = await readForm(c);
  const program = c.req.query("program") ?? "";
  const body = compact({
    number: text(f, "number")?.replace(/\s+/g, ""),
    expMonth: num(f, "expMonth"),
    expYear: num(f, "expYear"),
    countryCode: text(f, "countryCode"),
    termsOfUse: text(f, "termsOfUse") === "true",
  });
  const result = await callApi(c, "POST", `/v1/programs/${encodeURIComponent(program)}/cards`, body);
  return afterAction(c, result, "Card enrolled.", `/dashboard/transactions${qs({ program })}`);
}
