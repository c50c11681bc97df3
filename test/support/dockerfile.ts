// A Dockerfile read and run without a Docker engine, for test/infra/image.test.ts: each stage gets a
// temporary folder standing for its filesystem root; COPY (from the build context, as .dockerignore leaves
// it, or from an earlier stage), WORKDIR, ENV and RUN do there what they say, with the machine's own node
// and npm. USER, EXPOSE, HEALTHCHECK, ENTRYPOINT and CMD are recorded for the test to run or check.
import { cpSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { copyFiles, run, cleanEnv } from "./pack.ts";

export interface Instruction {
  op: string;
  args: string;
  line: number;
}

/** The instructions in order: continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith("\\") && i + 1 < lines.length) {
      i++;
      const next = lines[i]!;
      if (/^\s*#/.test(next)) continue;
      line = line.slice(0, -1) + " " + next.trim();
    }
    const m = /^\s*(\w+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: cannot read ${line}`);
    instructions.push({ op: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start + 1 });
  }
  return instructions;
}

export interface Stage {
  name?: string;
  base: string;
  instructions: Instruction[];
}

export function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.op === "FROM") {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      stages.push({ base: m![1]!, ...(m![2] ? { name: m![2] } : {}), instructions: [] });
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** JSON exec form (["node", "x"]) as a list. */
export const execForm = (args: string): string[] => JSON.parse(args) as string[];

/** ENV's KEY=value pairs (values unquoted or double-quoted). */
export function envPairs(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) env[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  return env;
}

/** Docker's .dockerignore rules (later patterns win, `!` keeps, a matched folder drops everything below it). */
export function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const keep = l.startsWith("!");
      const pattern = (keep ? l.slice(1) : l).replace(/^\/+|\/+$/g, "");
      const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*");
      return { keep, regex: new RegExp(`^${source}(/.*)?$`) };
    });
  return (path) => {
    let ignored = false;
    for (const rule of rules) if (rule.regex.test(path)) ignored = !rule.keep;
    return ignored;
  };
}

export interface StageResult {
  name?: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  healthcheck?: string[];
  entrypoint?: string[];
  cmd?: string[];
  runs: string[];
}

/** The path `path` (absolute in the stage, or relative to its WORKDIR) in the stage's folder. */
const inStage = (stage: { root: string; workdir: string }, path: string) => join(stage.root, posix.resolve(stage.workdir, path));

/** Runs every stage in order in folders under `work`, the build context being `context` (its `files`). */
export async function buildImage(stages: Stage[], context: string, files: string[], work: string): Promise<StageResult[]> {
  const ignore = dockerignore(readFileSync(join(context, ".dockerignore"), "utf8"));
  const contextFiles = files.filter((f) => !ignore(f));
  const done: StageResult[] = [];
  for (const [index, stage] of stages.entries()) {
    const result: StageResult = { ...(stage.name ? { name: stage.name } : {}), root: join(work, `stage-${index}`), workdir: "/", env: {}, runs: [] };
    mkdirSync(result.root, { recursive: true });
    for (const { op, args, line } of stage.instructions) {
      const where = `Dockerfile line ${line} (${op} ${args})`;
      switch (op) {
        case "WORKDIR":
          result.workdir = posix.resolve(result.workdir, args);
          mkdirSync(inStage(result, "."), { recursive: true });
          break;
        case "ENV":
          Object.assign(result.env, envPairs(args));
          break;
        case "COPY": {
          const words = args.split(/\s+/);
          const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
          const [dest, ...sources] = words.filter((w) => !w.startsWith("--")).reverse();
          sources.reverse();
          const target = inStage(result, dest!);
          if (from !== undefined) {
            const source = done.find((s, i) => s.name === from || String(i) === from);
            if (!source) throw new Error(`${where}: no stage ${from}`);
            for (const path of sources) {
              const copied = join(source.root, posix.resolve("/", path));
              // A file copied to a folder (dest ending in /) keeps its name; a folder's contents go into dest.
              const to = dest!.endsWith("/") && statSync(copied).isFile() ? join(target, posix.basename(path)) : target;
              mkdirSync(join(to, ".."), { recursive: true });
              cpSync(copied, to, { recursive: true, verbatimSymlinks: true });
            }
          } else {
            for (const path of sources) {
              const prefix = path === "." ? "" : path.replace(/\/+$/, "");
              const matched = contextFiles.filter((f) => prefix === "" || f === prefix || f.startsWith(`${prefix}/`));
              if (matched.length === 0) throw new Error(`${where}: ${path} is not in the build context`);
              if (matched.length === 1 && matched[0] === prefix) {
                const to = dest!.endsWith("/") ? join(target, posix.basename(prefix)) : target;
                mkdirSync(join(to, ".."), { recursive: true });
                cpSync(join(context, prefix), to);
              } else {
                copyFiles(matched.map((f) => (prefix === "" ? f : f.slice(prefix.length + 1))), prefix === "" ? context : join(context, prefix), target);
              }
            }
          }
          break;
        }
        case "RUN": {
          result.runs.push(args);
          const ran = await run("sh", ["-c", args], { cwd: inStage(result, "."), env: cleanEnv(result.env), timeoutMs: 600_000 });
          if (ran.status !== 0) throw new Error(`${where} exited ${ran.status}:\n${ran.output}`);
          break;
        }
        case "USER":
          result.user = args;
          break;
        case "HEALTHCHECK": {
          const cmd = /\bCMD\s+(\[.*\])$/.exec(args);
          if (!cmd) throw new Error(`${where}: a HEALTHCHECK CMD in exec form`);
          result.healthcheck = execForm(cmd[1]!);
          break;
        }
        case "ENTRYPOINT":
          result.entrypoint = execForm(args);
          break;
        case "CMD":
          result.cmd = execForm(args);
          break;
        case "EXPOSE":
        case "LABEL":
        case "ARG":
          break;
        default:
          throw new Error(`${where}: not understood by this reader`);
      }
    }
    done.push(result);
  }
  return done;
}
