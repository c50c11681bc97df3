#!/usr/bin/env node
// `npm run build`: compiles src/, simulators/ and the TypeScript client's source (which the CLI uses) to
// JavaScript in dist/, with source maps, and copies beside the compiled modules the files they read at run
// time. Type errors are `npm run typecheck`'s job: the compiler only emits here (noCheck), which keeps a
// build to a few seconds; it runs on `npm install` in a checkout (`prepare`) and before `npm pack`.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const dist = join(root, "dist");
const require = createRequire(import.meta.url);

/** What the compiled code reads with readFileSync or loads by URL beside itself: [folder, file ending]. */
const ASSETS = [
  ["src/platform/migrations", ".sql"],
  ["simulators/host/migrations", ".sql"],
  ["src/platform/bus/schemas", ".avsc"],
  ["src/dashboard/assets", ""],
  ["src/platform", ".mjs"], // pglite-thread.mjs, the embedded database's worker thread
];
/** Swagger UI's files served at /docs/assets (src/api/docs.ts reads them from dist/src/api/swagger-ui). */
const SWAGGER_UI = ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"];

rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
if (tsc.status !== 0) {
  process.stderr.write("build: tsc failed\n");
  process.exit(tsc.status ?? 1);
}

for (const [folder, ending] of ASSETS) {
  mkdirSync(join(dist, folder), { recursive: true });
  for (const file of readdirSync(join(root, folder), { withFileTypes: true })) {
    if (file.isFile() && file.name.endsWith(ending)) cpSync(join(root, folder, file.name), join(dist, folder, file.name));
  }
}
const swaggerUi = dirname(require.resolve("swagger-ui-dist/package.json"));
mkdirSync(join(dist, "src/api/swagger-ui"), { recursive: true });
for (const file of SWAGGER_UI) cpSync(join(swaggerUi, file), join(dist, "src/api/swagger-ui", file));

// bin/cardlink.mjs compares the sources' times with this file's: in a checkout it runs the sources through
// tsx when they changed after the last build.
writeFileSync(join(dist, ".built"), `${new Date().toISOString()}\n`);
