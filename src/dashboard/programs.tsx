// The program a page is about: the caller's programs, the one chosen with `?program=` (else the
// newest) or the one a record belongs to, and the prompt to create one when there is none.
import type { Child } from "hono/jsx";
import { callApi, must, PageError, type DashContext, type List } from "./context.ts";
import type { Program } from "../services/catalog/index.ts";

/** The caller's programs and the one the page is about (`?program=`, else the newest). */
export async function programsOf(c: DashContext): Promise<{ programs: Program[]; program: Program | undefined }> {
  const items = await listPrograms(c);
  const wanted = c.req.query("program");
  const program = (wanted && items.find((p) => p.id === wanted)) || items[0];
  if (wanted && !items.some((p) => p.id === wanted)) {
    throw new PageError(404, { code: "resource_not_found", message: `No program with id ${wanted}.` });
  }
  return { programs: items, program };
}

/** The caller's programs, for the switcher; a record's page picks the one the record belongs to. */
export const listPrograms = async (c: DashContext): Promise<Program[]> => must(await callApi<List<Program>>(c, "GET", "/v1/programs?limit=100")).items;

/** A page that needs a program: the prompt to create one when the account has none. */
export const NoProgram = (): Child => (
  <div>
    <p>This environment has no program yet: create one here or with <code>POST /v1/programs</code>.</p>
    <form method="post" action="/dashboard/programs" class="inline">
      <label for="new-program">Program name</label>
      <input id="new-program" name="name" required />
      <button type="submit">Create program</button>
    </form>
  </div>
);
