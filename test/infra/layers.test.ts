// The layer rules in eslint.config.js: each arrow that must not come back fails lint. Linted as text at
// the path the import would be written in, so the tree itself stays untouched.
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const cwd = fileURLToPath(new URL("../../", import.meta.url));
const eslint = new ESLint({ cwd });

async function restricted(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${cwd}${path}` });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("layer rules", () => {
  it.each([
    ["src/services/example.ts", 'import type { AppEnv } from "../api/context.ts";\nexport type E = AppEnv;\n'],
    ["src/services/example.ts", 'import { ApiError } from "../api/errors.ts";\nexport const e = ApiError;\n'],
    ["src/services/example.ts", 'import { layout } from "../dashboard/layout.tsx";\nexport const l = layout;\n'],
    ["src/domain/example.ts", 'import type { Db } from "../services/db.ts";\nexport type D = Db;\n'],
    ["src/domain/example.ts", 'import type { Bus } from "../bus/bus.ts";\nexport type B = Bus;\n'],
    ["src/domain/example.ts", 'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n'],
    ["src/domain/example.ts", 'import postgres from "postgres";\nexport const p = postgres;\n'],
  ])("%s may not %s", async (path, source) => {
    expect(await restricted(path, source)).toHaveLength(1);
  }, 60_000);

  it.each([
    ["src/services/example.ts", 'import { money } from "../domain/money.ts";\nexport const m = money;\n'],
    ["src/domain/example.ts", 'import { luhnValid } from "./luhn.ts";\nexport const l = luhnValid;\n'],
  ])("%s may %s", async (path, source) => {
    expect(await restricted(path, source)).toEqual([]);
  }, 60_000);
});
