// After a form's action: a flash message (the API's own error message when it failed) and a redirect
// back to the page, so reloading never repeats the action.
import type { ApiResult, DashContext } from "./context.ts";
import { setFlash } from "./session.ts";

export async function afterAction(c: DashContext, result: ApiResult<unknown>, done: string, back: string) {
  await setFlash(c, c.var.deps.secret, result.ok ? { kind: "ok", text: done } : { kind: "error", text: result.error.message });
  return c.redirect(back, 303);
}

/** A page of this dashboard a form names to return to (path and plain query), else `fallback`: never another site. */
export const localBack = (value: string | undefined, fallback: string) =>
  value && /^\/dashboard(\/[A-Za-z0-9/_-]*)?(\?[A-Za-z0-9=&_-]*)?$/.test(value) ? value : fallback;
