// The API docs page at /docs: Swagger UI over /v1/openapi.json, its assets served from this package
// (nothing from a CDN, so the page works offline).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hono } from "hono";
import type { AppEnv } from "./context.ts";

// `npm run build` copies Swagger UI's files beside the compiled module (scripts/build.mjs), so the built
// package needs no swagger-ui-dist at run time, nor the install-time telemetry package it depends on
// (docs/packaging.md); run from the sources, they come from the swagger-ui-dist devDependency.
const built = fileURLToPath(new URL("./swagger-ui/", import.meta.url));
const distDir = existsSync(built) ? built : dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

// Read once at start-up: a handful of files, served from memory on every request.
const files = new Map(Object.keys(ASSETS).map((name) => [name, readFileSync(join(distDir, name))]));

const INIT = `window.addEventListener("load", function () {
  var holder = document.getElementById("swagger-ui");
  // validatorUrl null: no badge fetched from validator.swagger.io, so nothing leaves the service.
  window.ui = SwaggerUIBundle({ url: holder.getAttribute("data-url"), dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API docs</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>
/* The links sit in Swagger UI's column, and the title follows them closely: Swagger UI's .info margin (50px) above both left a blank band. */
.swagger-ui p.docs-links { margin: 0 auto; padding-top: 16px; font-family: sans-serif; font-size: 14px; }
.swagger-ui .information-container .info { margin: 16px 0 40px; }
</style>
</head>
<body>
<nav class="swagger-ui" aria-label="Cardlink"><p class="wrapper docs-links"><a href="/">Home</a> · <a href="/dashboard">Dashboard</a></p></nav>
<div id="swagger-ui" data-url="/v1/openapi.json"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

/**
 * The docs page's own policy: the dashboard's, but Swagger UI sets inline style attributes, so styles may be
 * inline; no script but the two served here, no framing anywhere (`frame-ancestors 'none'`).
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function mountDocs(app: Hono<AppEnv>) {
  app.use("/docs", async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
  });
  app.get("/docs", (c) => c.html(PAGE));
  app.get("/docs/assets/init.js", (c) => c.body(INIT, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/docs/assets/:file", (c) => {
    const name = c.req.param("file");
    const body = files.get(name);
    if (!body) return c.notFound();
    return c.body(new Uint8Array(body), 200, { "content-type": ASSETS[name]!, "cache-control": "public, max-age=3600" });
  });
}
