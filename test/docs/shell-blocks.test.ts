// The README's quick start and the three walk-through pages, run as written: every `sh` block in order in
// one bash session against `cardlink start` on a temporary DATA_DIR and a free port. Each block must exit
// 0; each `# …` line in a block, and each line of a "prints something like" block, must match a line the
// block printed (`…` matches anything, with the spaces around it, `<name>` any text).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";

const REPO = resolve(".");
const PAGES = ["README.md", "docs/walkthrough.md", "docs/offers.md", "docs/transactions-and-webhooks.md"];

interface Block {
  page: string;
  line: number;
  code: string;
  /** Lines the block must print: its `# ` lines and the "prints something like" block after it. */
  expected: string[];
}

/** The sh blocks of a page in order, with what each must print. */
function blocksOf(page: string): Block[] {
  const text = readFileSync(join(REPO, page), "utf8");
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  const blocks: Block[] = [];
  let previousEnd = 0;
  let attached = false;
  for (const m of text.matchAll(fence)) {
    const [, lang, body] = m as unknown as [string, string, string];
    const between = text.slice(previousEnd, m.index);
    previousEnd = m.index + m[0].length;
    const line = text.slice(0, m.index).split("\n").length;
    if (lang === "sh") {
      blocks.push({ page, line, code: body, expected: body.split("\n").filter((l) => l.startsWith("# ")).map((l) => l.slice(2)) });
      attached = false;
    } else if (lang === "" && /prints something like/.test(between) && blocks.length > 0 && !attached) {
      // The first such block after a sh block is that block's output (a second one is the quick start's listener).
      blocks.at(-1)!.expected.push(...body.split("\n").filter((l) => l.trim() !== ""));
      attached = true;
    }
  }
  return blocks;
}

const pattern = (expected: string) =>
  new RegExp(
    "^" +
      expected
        .replace(/\s*…\s*/g, "…")
        .split(/(…|<[A-Za-z ]+>)/)
        .map((part) => (part === "…" ? ".*?" : /^<[A-Za-z ]+>$/.test(part) ? ".+?" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("") +
      "$",
  );

const freePort = () =>
  new Promise<number>((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });

let dataDir: string;
let workDir: string;
let server: ChildProcess;
let serverOut = "";
let apiPort: number;
let listenPort: number;
let quickStartPort: number;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "cardlink-docs-data-"));
  workDir = mkdtempSync(join(tmpdir(), "cardlink-docs-work-"));
  [apiPort, listenPort, quickStartPort] = [await freePort(), await freePort(), await freePort()];
  server = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "start"], {
    cwd: REPO,
    env: { ...process.env, PORT: String(apiPort), DATA_DIR: dataDir, LOG_LEVEL: "warn", DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", ADMIN_TOKEN: "" },
    detached: true,
  });
  server.stdout!.on("data", (d: Buffer) => (serverOut += d.toString()));
  server.stderr!.on("data", (d: Buffer) => (serverOut += d.toString()));
  const deadline = Date.now() + 120_000;
  while (!serverOut.includes("live key:")) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`cardlink start did not come up:\n${serverOut}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

afterAll(() => {
  if (server?.pid) process.kill(-server.pid, "SIGTERM");
  rmSync(workDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** One bash session; `run` sends a block and resolves with what it printed and its exit status. */
function session(env: Record<string, string>) {
  const bash = spawn("bash", ["--noprofile", "--norc"], { cwd: workDir, env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", ...env }, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  bash.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  bash.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  let n = 0;
  return {
    async run(code: string, timeoutMs = 120_000): Promise<{ output: string; status: number }> {
      const marker = `__block_${++n}_done__`;
      const start = out.length;
      bash.stdin!.write(`${code}\necho "${marker} $?"\n`);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const at = out.indexOf(marker, start);
        if (at >= 0) {
          const status = Number(out.slice(at + marker.length).trim().split(/\s/)[0]);
          return { output: out.slice(start, at), status };
        }
        if (Date.now() > deadline) return { output: out.slice(start), status: -1 };
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop() {
      if (bash.pid) process.kill(-bash.pid, "SIGTERM");
    },
  };
}

it("runs the README quick start and the walk-through pages as written, printing what they say", { timeout: 900_000 }, async () => {
  const credentials = JSON.parse(readFileSync(join(dataDir, "credentials.json"), "utf8")) as { adminToken: string; demo: { test: string } };
  const url = `http://localhost:${apiPort}`;
  // The quick start's listener keeps its default port in the page; here it runs on a free one, as does the walk-through's.
  let port = quickStartPort;
  const substitute = (text: string) =>
    text
      .replaceAll("http://localhost:3000", url)
      .replaceAll("localhost:4000", `localhost:${port}`)
      .replaceAll("--port 4000", `--port ${port}`)
      .replaceAll("sk_test_paste_the_printed_test_key_here", credentials.demo.test)
      .replaceAll("paste_the_printed_admin_token_here", credentials.adminToken)
      .replaceAll("./.data", dataDir);
  // The CLI finds the service and the demo key the way a user's shell would: CARDLINK_URL and DATA_DIR.
  // `npm run` runs in the repository while the pages' files (webhooks.log) land in a scratch folder.
  const shell = session({ CARDLINK_URL: url, DATA_DIR: dataDir, LOG_LEVEL: "warn", REPO });
  try {
    await shell.run('npm() { command npm --prefix "$REPO" "$@"; }');
    for (const page of PAGES) {
      port = page === "README.md" ? quickStartPort : listenPort;
      for (const block of blocksOf(page)) {
        let code = substitute(block.code);
        if (/npm install|npm start|^npm test|client:generate/m.test(code)) {
          // Starting the service is the test's own set-up; its printout is checked against the page.
          for (const line of block.expected) expect(serverOut.split("\n").some((l) => pattern(substitute(line)).test(l)), `${page}:${block.line} ${line}`).toBe(true);
          continue;
        }
        // The pages run the shipped flows from the repository, where a reader's shell is; this one is in a scratch folder.
        if (/ flows\//.test(code)) code = `pushd "$REPO" > /dev/null\n${code}\nstatus=$?; popd > /dev/null; (exit $status)`;
        const listener = /^npm run --silent cardlink -- listen$/m.test(code);
        // The quick start's listener runs in a terminal of its own: here in the background, on a free port.
        if (listener) {
          code = `npm run --silent cardlink -- listen --port ${quickStartPort} > quick-start-listen.log &\nuntil grep -q '^ready' quick-start-listen.log; do sleep 0.2; done`;
        }
        const { output, status } = await shell.run(code);
        expect(status, `${page}:${block.line} exited ${status}\n${code}\n--- printed:\n${output}`).toBe(0);
        const printed = (listener ? "" : output).split("\n");
        for (const line of block.expected) {
          expect(printed.some((l) => pattern(substitute(line)).test(l)), `${page}:${block.line} should print a line like\n${line}\n--- printed:\n${output}`).toBe(true);
        }
        if (/cardlink -- trigger/.test(code)) {
          // The quick start's second expected block is the listener's: wait for both events, then compare.
          const log = await shell.run(
            "until [ \"$(grep -c '^transaction' quick-start-listen.log)\" -ge 2 ]; do sleep 0.2; done; cat quick-start-listen.log",
          );
          const next = blocksOfExpected(page, block.line);
          for (const line of next) expect(log.output.split("\n").some((l) => pattern(substitute(line)).test(l)), `${page}: listener line like ${line}\n${log.output}`).toBe(true);
        }
      }
    }
  } finally {
    shell.stop();
  }
});

/** The second "prints something like" block after the sh block at `line` (the quick start's listener output). */
function blocksOfExpected(page: string, line: number): string[] {
  const text = readFileSync(join(REPO, page), "utf8").split("\n").slice(line).join("\n");
  const found = [...text.matchAll(/prints something like[^\n]*\n\n```\n([\s\S]*?)^```$/gm)];
  return (found[1]?.[1] ?? "").split("\n").filter((l) => l.trim() !== "");
}
