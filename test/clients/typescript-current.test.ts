// The typed client's generated types are current: regenerated from today's OpenAPI document into a
// temporary folder, they equal the checked-in clients/typescript/src/openapi.ts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { writeTypes } from "../../clients/typescript/generate.ts";

it("has clients/typescript/src/openapi.ts generated from the current OpenAPI document (npm run client:generate)", { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "cardlink-client-"));
  try {
    const fresh = readFileSync(await writeTypes(dir), "utf8");
    const checkedIn = readFileSync("clients/typescript/src/openapi.ts", "utf8");
    expect(fresh === checkedIn, "clients/typescript/src/openapi.ts is stale: run npm run client:generate and commit it").toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
