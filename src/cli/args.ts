// The one argument parser of every `cardlink` command and its two refusals: a UsageError (the command was
// called wrongly: one line, exit 64) and a CommandError (it was called rightly and failed: one line, exit 1).
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Config } from "../platform/config/index.ts";

/** The command was called wrongly (an unknown option, a missing or bad value): one line naming it, exit 64. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A failure to print as it is, on one line (the server's refusal, a server not reached): exit 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** What the parser hands a command: its options' values and, when it takes them, its positionals. */
export type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

export interface Command<O extends Options = Options> {
  /** Its lines in `cardlink help`: the synopsis at two spaces, what it does at column 28. */
  readonly usage: string;
  readonly options: O;
  /** Whether it takes positionals (a subcommand, files, an event); any other positional is a usage error. */
  readonly positionals?: boolean;
  /** Runs it; a number is the exit status (0 when nothing is returned). */
  run(parsed: Parsed<O>, config: Config): Promise<number | void> | number | void;
}

/** Declares a command with its options' types inferred, so its handler reads typed values. */
export const command = <const O extends Options>(c: Command<O>): Command<O> => c;

/** node:util parseArgs's refusal of an unknown option or a missing value. */
const parseArgsError = (err: unknown): err is Error =>
  err instanceof Error && typeof (err as NodeJS.ErrnoException).code === "string" && (err as NodeJS.ErrnoException).code!.startsWith("ERR_PARSE_ARGS_");

/** Parses `args` by the command's options; a refusal of the parser is a UsageError naming the command. */
export function parse<O extends Options>(name: string, c: Command<O>, args: string[]): Parsed<O> {
  try {
    const parsed = parseArgs({ args, options: c.options, allowPositionals: true, strict: true });
    if (!c.positionals && parsed.positionals.length > 0) throw new UsageError(`${name}: takes no argument ${parsed.positionals[0]} (cardlink help lists the options)`);
    return parsed;
  } catch (err) {
    if (parseArgsError(err)) throw new UsageError(`${name}: ${err.message.replace(/\s*\n\s*/g, " ")} (cardlink help lists the options)`);
    throw err;
  }
}

/** Writes lines to stdout. */
export const print = (lines: readonly string[]) => void process.stdout.write(lines.map((l) => `${l}\n`).join(""));

/** A whole number within [min, max] from an option's value, else a UsageError naming the option. */
export function wholeNumber(option: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (value === undefined || value.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${option}: must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}`);
  }
  return n;
}
