// Rule: DATA_DIR is its owner's alone: the folder and every folder in it 0700, every file 0600 (the
// database's, the bus log's and the credentials), and what the process writes later is born private (umask 077).
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/platform/config/index.ts";
import { openSystem } from "../../src/app/system.ts";
import { writeCredentials } from "../../src/platform/config/credentials.ts";
import { topicSpecs } from "../../src/platform/bus/topics.ts";

const root = mkdtempSync(join(tmpdir(), "cardlink-data-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every path under `dir` that anyone but its owner may read, write or enter, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const mode = (path: string) => statSync(path).mode & 0o777;
  if (mode(dir) & 0o077) found.push(`${dir} ${mode(dir).toString(8)}`);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if ((entry.isFile() || entry.isDirectory()) && mode(path) & 0o077) found.push(`${path} ${mode(path).toString(8)}`);
  }
  return found;
}

describe("DATA_DIR", () => {
  it("is 0700 with files 0600: PGlite's files, the embedded bus log and the credentials", async () => {
    const dir = join(root, "data");
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent" });
    const system = await openSystem(config, { command: "test", bus: true });
    try {
      await system.services.bus.createTopics(topicSpecs());
      writeCredentials(config, { adminToken: "adm_0123456789abcdef" });
      const files = readdirSync(dir, { recursive: true }).map(String);
      expect(files).toContain("PG_VERSION");
      expect(files.some((f) => f.startsWith("bus"))).toBe(true);
      expect(files).toContain("credentials.json");
      expect(openToOthers(dir)).toEqual([]);
    } finally {
      await system.close();
    }
    expect(openToOthers(dir)).toEqual([]);
  }, 120_000);
});
