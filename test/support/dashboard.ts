// The dashboard as a browser reaches it over HTTP: signed in with a key (the session cookie), pages read
// and same-origin forms posted through the harness's app, redirects not followed.
import type { Harness } from "./harness.ts";

/** The harness app's own origin (app.request's), which the dashboard's cross-site check compares with. */
const ORIGIN = "http://localhost";

/** A page's text with the entities Hono's JSX escapes turned back, for matching against what it shows. */
export const unescaped = (page: string) => page.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

export interface DashboardSession {
  get(path: string): Promise<Response>;
  /** Posts a form as the page would; the answer is the redirect the dashboard gives. */
  post(path: string, form: Record<string, string>): Promise<Response>;
}

export async function signedIn(h: Harness, secret: string): Promise<DashboardSession> {
  const form = (values: Record<string, string>) => ({
    body: new URLSearchParams(values).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
  });
  const res = await h.request("POST", "/dashboard/sign-in", form({ secret }));
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  return {
    get: (path) => h.request("GET", path, { headers: { cookie } }),
    post: (path, values) => {
      const init = form(values);
      return h.request("POST", path, { body: init.body, headers: { ...init.headers, cookie } });
    },
  };
}
