// The dashboard's static files, all from this package: its own stylesheet, script and icon, and Chart.js
// from node_modules. Read once at start-up and served from memory.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hono } from "hono";
import type { DashEnv } from "./context.ts";

const require = createRequire(import.meta.url);
const here = join(dirname(fileURLToPath(import.meta.url)), "assets");
// chart.js exports no package.json; its main entry sits in dist/ beside the UMD build.
const chartDir = dirname(require.resolve("chart.js"));

const FILES: Record<string, { path: string; type: string }> = {
  "dashboard.css": { path: join(here, "dashboard.css"), type: "text/css; charset=utf-8" },
  "dashboard.js": { path: join(here, "dashboard.js"), type: "text/javascript; charset=utf-8" },
  "chart.umd.min.js": { path: join(chartDir, "chart.umd.min.js"), type: "text/javascript; charset=utf-8" },
  "favicon.svg": { path: join(here, "favicon.svg"), type: "image/svg+xml" },
};

const loaded = new Map(Object.entries(FILES).map(([name, f]) => [name, { body: readFileSync(f.path), type: f.type }]));

/** The icon every page names (`FAVICON`); also answered at /favicon.ico, which a browser asks for on a page that names none. */
export const FAVICON = "/dashboard/assets/favicon.svg";
export const favicon = () => {
  const file = loaded.get("favicon.svg")!;
  return new Response(new Uint8Array(file.body), { headers: { "content-type": file.type, "cache-control": "public, max-age=86400" } });
};

export function mountAssets(dash: Hono<DashEnv>) {
  dash.get("/assets/:file", (c) => {
    const file = loaded.get(c.req.param("file"));
    if (!file) return c.notFound();
    return c.body(new Uint8Array(file.body), 200, { "content-type": file.type, "cache-control": "public, max-age=300" });
  });
}
