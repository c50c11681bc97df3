#!/usr/bin/env node
// The `cardlink` command: runs the compiled CLI in dist/ (`npm run build`, which `npm install` runs in a
// checkout). In a checkout whose sources changed after the last build, it runs the sources through tsx (a
// devDependency) instead, so a developer never runs stale code; an installed package ships no sources.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const SOURCES = ["src", "simulators", "clients/typescript/src", "tsconfig.build.json"];

/** The newest modification time under `path`: a deleted file changes its folder's. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  let time = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
      time = Math.max(time, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return time;
}

function fromSources() {
  if (!existsSync(join(root, "src/main.ts"))) return false;
  const built = statSync(join(root, "dist/.built"), { throwIfNoEntry: false });
  return !built || SOURCES.some((source) => newest(join(root, source)) > built.mtimeMs);
}

if (fromSources()) {
  if (process.stderr.isTTY) process.stderr.write("cardlink: the sources changed after the last build: running them through tsx (npm run build makes it fast again)\n");
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
} else {
  // Stack traces name the TypeScript files and lines (dist/ has source maps).
  process.setSourceMapsEnabled(true);
  await import("../dist/src/main.js");
}
