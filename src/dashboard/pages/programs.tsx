// Programs: creating one, from the prompt a page of no program shows (NoProgram); the answer opens the
// new program's overview.
import type { Hono } from "hono";
import { callApi, qs, type DashContext, type DashEnv } from "../context.ts";
import { afterAction } from "../actions.ts";
import { readForm, text } from "../form.ts";

export function mountPrograms(dash: Hono<DashEnv>) {
  dash.post("/programs", createProgram);
}

async function createProgram(c: DashContext) {
  const f = await readForm(c);
  const result = await callApi<{ id: string }>(c, "POST", "/v1/programs", { name: text(f, "name") });
  return afterAction(c, result, "Program created.", `/dashboard${result.ok ? qs({ program: result.data.id }) : ""}`);
}
