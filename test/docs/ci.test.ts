// docs/ci.md's jobs run as written against the packed tarball, in an integrator's workspace holding the
// tarball and two flow files: the GitHub Actions steps one at a time as the runner runs them (`bash
// --noprofile --norc -eo pipefail`, the job's env, `uses:` steps left to the runner: this machine has Node),
// and the GitLab script in one shell. Both pass; a flow whose expectation breaks fails the job.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT, cleanEnv, packCardlink, run, type Ran } from "../support/pack.ts";
import { freePort } from "../support/server-process.ts";

const page = readFileSync(join(ROOT, "docs/ci.md"), "utf8");
const yamlBlocks = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

interface Step {
  name?: string;
  run?: string;
  uses?: string;
}
const workflow = parse(yamlBlocks[0]!) as { jobs: Record<string, { env: Record<string, string>; steps: Step[] }> };
const [githubJob] = Object.values(workflow.jobs);
const gitlab = parse(yamlBlocks[1]!) as Record<string, { variables: Record<string, string>; script: string[]; artifacts: { reports: { junit: string } } }>;
const [gitlabJob] = Object.values(gitlab);

const FLOWS = ["qualification.yaml", "refund.yaml"];
// An expectation that does not hold: the program's name is not what the flow says.
const BROKEN = `name: A broken expectation
steps:
  - id: program
    program: { name: "Flow: broken" }
    expect:
      body: { name: "Another name" }
`;

let work: string;
let tarball: string;
/** Process groups of every shell a job ran: Cardlink, started in the background, lives in one of them. */
const groups: number[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cardlink-ci-"));
  tarball = await packCardlink(work);
}, 600_000);

afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, "SIGTERM");
    } catch {
      // gone already
    }
  }
  rmSync(work, { recursive: true, force: true });
});

/** An integrator's repository: the packed Cardlink where the jobs expect it, and their flow files. */
function workspace(name: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, "ci"), { recursive: true });
  mkdirSync(join(dir, "flows"));
  copyFileSync(tarball, join(dir, "ci", "cardlink-0.1.0.tgz"));
  for (const flow of FLOWS) copyFileSync(join(ROOT, "flows", flow), join(dir, "flows", flow));
  return dir;
}

let scripts = 0;
/** A script in bash with `args`, in a process group of its own that the test ends with the file. */
function shell(script: string, options: { cwd: string; env: NodeJS.ProcessEnv; args: string[] }): Promise<Ran> {
  const file = join(work, `script-${++scripts}.sh`);
  writeFileSync(file, script);
  return run("bash", [...options.args, file], { cwd: options.cwd, env: options.env, timeoutMs: 300_000, group: (pid) => groups.push(pid) });
}

it("names the tarball npm pack writes", () => {
  expect(tarball.endsWith("cardlink-0.1.0.tgz")).toBe(true);
  expect(githubJob!.env.CARDLINK_PACKAGE).toMatch(/cardlink-0\.1\.0\.tgz$/);
  expect(gitlabJob!.variables.CARDLINK_PACKAGE).toMatch(/cardlink-0\.1\.0\.tgz$/);
});

let github: { dir: string; env: NodeJS.ProcessEnv; steps: Step[] };
/** One `run:` step as the runner runs it: `bash --noprofile --norc -eo pipefail {0}` in the workspace. */
const githubStep = (step: Step): Promise<Ran> => shell(step.run!, { cwd: github.dir, env: github.env, args: ["--noprofile", "--norc", "-eo", "pipefail"] });


it("GitHub Actions: installs the package, starts Cardlink, runs the flows and passes", async () => {
  const dir = workspace("github");
  const runnerTemp = join(work, "github-runner-temp");
  mkdirSync(runnerTemp);
  const expressions = (value: string) => value.replaceAll("${{ github.workspace }}", dir).replaceAll("${{ runner.temp }}", runnerTemp);
  const jobEnv = Object.fromEntries(Object.entries(githubJob!.env).map(([k, v]) => [k, expressions(String(v))]));
  const env = cleanEnv({ ...jobEnv, PORT: String(await freePort()), RUNNER_TEMP: runnerTemp, GITHUB_WORKSPACE: dir, CI: "true" });
  github = { dir, env, steps: githubJob!.steps };
  expect(githubJob!.steps.filter((s) => s.uses).map((s) => s.uses!.split("@")[0])).toEqual(["actions/checkout", "actions/setup-node", "actions/upload-artifact"]);
  for (const step of githubJob!.steps.filter((s) => s.run)) {
    const ran = await githubStep(step);
    expect(ran.status, `${step.name}:\n${ran.output}`).toBe(0);
    if (step.name === "Run the flows") for (const flow of FLOWS) expect(ran.output).toMatch(new RegExp(`^PASS flows/${flow.replace(".", "\\.")}`, "m"));
  }
  expect(readFileSync(join(dir, "reports/flows.xml"), "utf8")).toMatch(/<testsuites[^>]* failures="0"/);
}, 600_000);

it("GitHub Actions: fails the job when a flow's expectation breaks", async () => {
  writeFileSync(join(github.dir, "flows", "broken.yaml"), BROKEN);
  const ran = await githubStep(github.steps.find((s) => s.name === "Run the flows")!);
  expect(ran.status, ran.output).toBe(1);
  expect(ran.output).toMatch(/^FAIL flows\/broken\.yaml/m);
  expect(readFileSync(join(github.dir, "reports/flows.xml"), "utf8")).toMatch(/<failure/);
}, 300_000);

it("GitLab CI: the job's script in one shell passes, and fails on a broken expectation", async () => {
  const dir = workspace("gitlab");
  const env = cleanEnv({ CI_PROJECT_DIR: dir, CI: "true" });
  // GitLab expands variables in variables: a value may name CI_PROJECT_DIR or an earlier variable.
  for (const [name, value] of Object.entries(gitlabJob!.variables)) env[name] = String(value).replace(/\$\{?(\w+)\}?/g, (_, v: string) => env[v] ?? "");
  env.PORT = String(await freePort());
  const script = gitlabJob!.script.join("\n");
  const passed = await shell(script, { cwd: dir, env, args: ["--noprofile", "--norc", "-e"] });
  expect(passed.status, passed.output).toBe(0);
  expect(readFileSync(join(dir, gitlabJob!.artifacts.reports.junit), "utf8")).toMatch(/<testsuites[^>]* failures="0"/);

  writeFileSync(join(dir, "flows", "broken.yaml"), BROKEN);
  const runFlows = gitlabJob!.script.filter((line) => /\brun flows\//.test(line) || /^mkdir/.test(line)).join("\n");
  const failed = await shell(runFlows, { cwd: dir, env, args: ["--noprofile", "--norc", "-e"] });
  expect(failed.status, failed.output).toBe(1);
  expect(failed.output).toMatch(/^FAIL flows\/broken\.yaml/m);
}, 600_000);
