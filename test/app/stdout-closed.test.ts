// A closed stdout (`npm start | head -1`, or `| tee log` and Ctrl-C) never keeps the process alive: log
// lines written after the reader left are dropped, the exit does not retry them forever, and a server whose
// stdout closes drains and exits 0 within DRAIN_TIMEOUT_SECONDS.
import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnCardlink, freePort } from "../support/server-process.ts";
import { infra } from "../support/infra.ts";

const dir = mkdtempSync(join(tmpdir(), "cardlink-stdout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves with the exit code, or "still running" after `ms`. */
const exitWithin = (child: ReturnType<typeof spawn>, ms: number) =>
  new Promise<number | null | "still running">((done) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done("still running");
    }, ms);
    child.once("exit", (code) => {
      clearTimeout(timer);
      done(code);
    });
  });

describe("a closed stdout", () => {
  it("does not hold the exit of a process that logged to it", async () => {
    // Two lines in one turn, then exit: an asynchronous logger has the second still queued at the exit.
    const script = join(dir, "log-then-exit.ts");
    writeFileSync(
      script,
      `import { createLogger } from ${JSON.stringify(resolve("src/platform/log.ts"))};
const log = createLogger({ LOG_LEVEL: "info" });
process.stdin.once("data", () => { log.info("first"); log.info("second"); process.exit(0); });`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["pipe", "pipe", "inherit"] });
    child.stdout!.destroy();
    child.stdin!.write("go\n");
    expect(await exitWithin(child, 10_000)).toBe(0);
  });

  it.runIf(infra.databaseUrl)(
    "drains a running server and exits 0 when stdout closes and it is interrupted",
    async () => {
      const port = await freePort();
      const server = spawnCardlink(["start"], { PORT: String(port), DATA_DIR: dir, DATABASE_URL: infra.databaseUrl!, DRAIN_TIMEOUT_SECONDS: "10" });
      await new Promise<void>((started) => {
        const watch = () => (server.output().includes("is running at") ? started() : setTimeout(watch, 100));
        watch();
      });
      // The reader leaves (head -1 has its line; tee was interrupted), then Ctrl-C reaches the server.
      server.child.stdout!.destroy();
      server.child.kill("SIGINT");
      expect(await exitWithin(server.child, 20_000)).toBe(0);
    },
    120_000,
  );
});
