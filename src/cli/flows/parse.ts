// Reads a flow file: YAML to a checked Flow, or a FlowFileError naming the file, the line and the field
// (`flows/refund.yaml:14: steps[3].refund.transactionId: required`). References to steps are checked too:
// `${purchase.id}` must name a step with that id before the one that uses it. An unknown action, event,
// environment or reference is quoted back beside the valid choices.
import { readFileSync } from "node:fs";
import { LineCounter, parseDocument, isMap, type Node } from "yaml";
import { z } from "zod";
import { ACTION_NAMES, FlowSchema, STEP_SCHEMAS, type ActionName, type Flow, type Step } from "./schema.ts";
import { at, BUILTINS, isBuiltin, referencesIn } from "./interpolate.ts";

export class FlowFileError extends Error {}

const fieldPath = (path: readonly PropertyKey[]) =>
  path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), "");

const quote = (v: unknown) => JSON.stringify(v);

/** An issue in words; `input` is the value at the issue's path (zod's issues do not carry it). */
const issueText = (issue: z.core.$ZodIssue, input: unknown): string => {
  if (issue.code === "unrecognized_keys") return `unknown field ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_type" && input === undefined) return "required";
  if (issue.code === "invalid_value") {
    const what = typeof issue.path.at(-1) === "string" ? String(issue.path.at(-1)) : "value";
    return `unknown ${what} ${quote(input)}; the ${what === "value" ? "values" : `${what}s`} are ${issue.values.map(String).join(", ")}`;
  }
  return issue.message;
};

const STEP_FIELDS = ["id", "name", "expect"];
const BUILTIN_LIST = "${run}, ${now}, ${today} and ${days(N)}";

export function parseFlow(file: string, text: string = readFileSync(file, "utf8")): Flow {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const lineOf = (path: readonly PropertyKey[]): number => {
    for (let p = [...path]; ; p = p.slice(0, -1)) {
      const node = doc.getIn(p as unknown[], true) as Node | undefined;
      if (node?.range) return lines.linePos(node.range[0]).line;
      if (p.length === 0) return 1;
    }
  };
  const fail = (path: readonly PropertyKey[], message: string, line = lineOf(path)): never => {
    throw new FlowFileError(`${file}:${line}: ${path.length ? `${fieldPath(path)}: ` : ""}${message}`);
  };
  const [yamlError] = doc.errors;
  if (yamlError) fail([], `not YAML: ${yamlError.message.split("\n")[0]}`, yamlError.linePos?.[0].line ?? 1);
  if (!isMap(doc.contents)) fail([], "a flow is a mapping with name and steps");
  const raw = doc.toJS() as Record<string, unknown>;
  const failOn = (issue: z.core.$ZodIssue, base: readonly PropertyKey[] = []): never =>
    fail([...base, ...issue.path], issueText(issue, at(raw, [...base, ...issue.path].join("."))));

  const top = FlowSchema.extend({ steps: z.array(z.unknown()).min(1, "give at least one step") }).safeParse(raw);
  if (!top.success) failOn(top.error.issues[0]!);
  const known = new Set<string>();
  const steps: Step[] = [];
  top.data!.steps.forEach((value, index) => {
    const stepAt = ["steps", index];
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail(stepAt, "a step is a mapping with one action");
    const step = value as Record<string, unknown>;
    const actions = Object.keys(step).filter((k) => (ACTION_NAMES as string[]).includes(k)) as ActionName[];
    if (actions.length === 0) {
      const unknown = Object.keys(step).filter((k) => !STEP_FIELDS.includes(k));
      fail(stepAt, `${unknown.length ? `unknown action ${unknown.map(quote).join(", ")}; ` : "no action; "}the actions are ${ACTION_NAMES.join(", ")}`);
    }
    if (actions.length > 1) fail(stepAt, `one action a step, not ${actions.join(" and ")}`);
    const action = actions[0]!;
    const checked = STEP_SCHEMAS[action].safeParse(step);
    if (!checked.success) failOn(checked.error.issues[0]!, stepAt);
    const parsed = checked.data as { id?: string; name?: string; expect?: Step["expect"] } & Record<string, unknown>;
    // Every ${…} must be a builtin or name an earlier step.
    const scan = (v: unknown, path: PropertyKey[]): void => {
      if (typeof v === "string") {
        for (const ref of referencesIn(v)) {
          const head = ref.split(/[.(]/)[0]!;
          if (BUILTINS.includes(head)) {
            if (!isBuiltin(ref)) fail(path, `unknown reference ${quote(`\${${ref}}`)}; the builtins are ${BUILTIN_LIST}`);
          } else if (!known.has(head)) {
            const ids = known.size ? `the ids of the steps before it are ${[...known].join(", ")}` : "no step before it has an id";
            fail(path, `unknown reference ${quote(`\${${ref}}`)}: no step before this one has id ${quote(head)}; ${ids}, and the builtins are ${BUILTIN_LIST}`);
          }
        }
      } else if (Array.isArray(v)) v.forEach((x, i) => scan(x, [...path, i]));
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) scan(x, [...path, k]);
    };
    scan({ [action]: parsed[action] }, stepAt);
    if (parsed.id !== undefined) {
      if (known.has(parsed.id) || BUILTINS.includes(parsed.id)) fail([...stepAt, "id"], `${parsed.id} is taken: ids name one step each and no builtin`);
      known.add(parsed.id);
    }
    // A step's expectations may refer to its own answer.
    scan({ expect: parsed.expect }, stepAt);
    if (action === "get" && typeof (parsed[action] as { path: string }).path === "string" && !(parsed[action] as { path: string }).path.startsWith("/")) {
      fail([...stepAt, action, "path"], "must start with /, e.g. /v1/transactions/${purchase.id}");
    }
    steps.push({
      id: parsed.id,
      name: parsed.name,
      action,
      args: parsed[action] as Record<string, unknown>,
      expect: parsed.expect,
      line: lineOf(stepAt),
    });
  });
  return { file, name: top.data!.name, environment: top.data!.environment, steps };
}

/** What the report calls a step: its name, else its id, else its action and line. */
export const stepLabel = (step: Step) => step.name ?? step.id ?? `${step.action} (line ${step.line})`;

