// The bus's zod validators come from its Avro schemas, in the same walk as its TypeScript declarations
// (src/platform/bus/schema-types.ts): the generated file is what the schemas give, the generator's rules hold, and a
// field added to a schema reaches the declaration, the validator and the compiler's check between them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import type { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import type { AvroSchema } from "../../../src/platform/bus/bus.ts";
import { simulatorCommandSchema } from "../../../src/platform/bus/validators.generated.ts";
import { GENERATED_VALIDATORS, busSchemas, declarationsOf, generatedValidators, validatorsOf } from "../../../src/platform/bus/schema-types.ts";
import { OUTER_SCHEMA } from "./fixtures/generator-schema.ts";
import { describeZodError } from "../../../src/domain/field-errors.ts";
import { nonEmpty, withFieldRules } from "../../../src/domain/field-rules.ts";

const enrolment = () => busSchemas().find((s) => s.name === "CardEnrolment")!;

/** The card-enrolment schema with one more field, as a developer would add it to the .avsc file. */
const withChannel = (): AvroSchema => {
  const schema = enrolment();
  const channel = { name: "channel", type: { type: "enum", name: "Channel", symbols: ["APP", "WEB"] }, doc: "Where the card was enrolled." };
  return { ...schema, fields: [...(schema.fields as AvroSchema[]), channel] };
};

// Generated modules are written below test-output/ (ignored by git), where `zod` resolves as in the tree.
const scratch = join(process.cwd(), "test-output");
mkdirSync(scratch, { recursive: true });
const dir = mkdtempSync(join(scratch, "validators-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the declarations of `types` and the validators of `validators` side by side, as bus:generate does. */
function writeModules(name: string, types: AvroSchema, validators: AvroSchema): string {
  const folder = join(dir, name);
  mkdirSync(folder);
  writeFileSync(join(folder, "messages.generated.ts"), declarationsOf([types]));
  writeFileSync(join(folder, "validators.generated.ts"), generatedValidators([validators]));
  return folder;
}

/** The compiler's errors for the two modules in each of `folders`, by folder (one program for all). */
function compile(...folders: string[]): string[][] {
  const program = ts.createProgram(
    folders.map((folder) => join(folder, "validators.generated.ts")),
    {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2023,
      allowImportingTsExtensions: true,
      types: ["node"],
    },
  );
  const errors = ts.getPreEmitDiagnostics(program);
  return folders.map((folder) => errors.filter((d) => d.file?.fileName.startsWith(folder)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")));
}

describe("bus message validators", () => {
  it("validators.generated.ts is what the schemas give (run `npm run bus:generate` after changing a schema)", () => {
    expect(readFileSync(GENERATED_VALIDATORS, "utf8")).toBe(generatedValidators());
  });

  it("records become z.object, enums z.enum, [null, T] nullable, closed lists z.enum, each satisfying its declaration", () => {
    expect(validatorsOf([OUTER_SCHEMA])).toBe(
      'export const kindSchema = z.enum(["A", "B"]) satisfies z.ZodType<M.Kind>;\n\n' +
        "export const innerSchema = z.object({\n  n: z.int(),\n}) satisfies z.ZodType<M.Inner>;\n\n" +
        "export const outerSchema = z.object({\n  kind: kindSchema,\n  inner: innerSchema.nullable(),\n  tags: z.array(z.string().nullable()),\n" +
        '  status: z.enum(["OK", "MID-NOT-ASSIGNED"]),\n}) satisfies z.ZodType<M.Outer>;\n',
    );
  });

  it("a default is filled in as an Avro reader fills it; an int is 32-bit", () => {
    const fields = [{ name: "count", type: "int", default: 0 }, { name: "note", type: ["null", "string"], default: null }, { name: "ids", type: { type: "array", items: "string" }, default: [] }];
    expect(validatorsOf([{ type: "record", name: "Defaults", fields }])).toBe(
      "export const defaultsSchema = z.object({\n  count: z.int32().default(0),\n  note: z.string().nullable().default(null),\n  ids: z.array(z.string()).default(() => []),\n}) satisfies z.ZodType<M.Defaults>;\n",
    );
  });

  it("a value missing a required field, or with a value its enum does not list, fails naming the field", () => {
    const command = { commandId: "c1", scheme: "visa", action: "CLEAR", purchaseId: "p1", issuedAt: "2026-01-05T12:00:00Z" };
    expect(simulatorCommandSchema.parse(command)).toMatchObject({ card: null, location: null, targetingTag: null });
    const fails = (value: unknown) => {
      const parsed = simulatorCommandSchema.safeParse(value);
      return parsed.success ? "" : describeZodError(parsed.error);
    };
    expect(fails({ ...command, purchaseId: undefined })).toBe("purchaseId: Invalid input: expected string, received undefined");
    expect(fails({ ...command, action: "CAPTURE" })).toBe('action: Invalid option: expected one of "PURCHASE"|"CLEAR"|"REFUND"|"VOID"|"INCREMENT"|"EXPIRE"');
    expect(fails({ ...command, targetingTag: "loyal" })).toBe('targetingTag: Invalid option: expected one of "new"|"lapsed"|"existing"');
  });

  describe("a field added to a schema", () => {
    it("reaches the declaration", () => {
      expect(declarationsOf([withChannel()])).toContain('  /** Where the card was enrolled. */\n  channel: Channel;\n}');
      expect(declarationsOf([withChannel()])).toContain('export type Channel = "APP" | "WEB";');
    });

    it("reaches the validator: a value without it, or with a value it does not list, fails naming it", async () => {
      const folder = writeModules("added", withChannel(), withChannel());
      const generated = (await import(pathToFileURL(join(folder, "validators.generated.ts")).href)) as Record<string, z.ZodType>;
      const schema = generated.cardEnrolmentSchema!;
      const value = { cardId: "c1", scheme: "visa", action: "ENROL", programId: "p1", firstSix: "424242", lastFour: "4242", live: true, at: "2026-01-05T12:00:00Z" };
      const reason = (v: unknown, s: z.ZodType = schema) => {
        const parsed = s.safeParse(v);
        return parsed.success ? "" : describeZodError(parsed.error);
      };
      expect(reason({ ...value, channel: "WEB" })).toBe("");
      expect(reason(value)).toBe('channel: Invalid option: expected one of "APP"|"WEB"');
      expect(reason({ ...value, channel: "POST" })).toBe('channel: Invalid option: expected one of "APP"|"WEB"');
      // A consumer's rules go on top of the structure, named the same way.
      expect(reason({ ...value, channel: "APP", cardId: " " }, withFieldRules(schema, { cardId: nonEmpty }))).toBe("cardId: must not be empty");
    });

    it("is held to the declaration by the compiler: a validator without it no longer satisfies the type", () => {
      const [agreeing, stale] = compile(writeModules("agreeing", withChannel(), withChannel()), writeModules("stale", withChannel(), enrolment()));
      expect(agreeing).toEqual([]);
      expect(stale!.join("\n")).toMatch(/Property 'channel' is missing/);
    }, 60_000);
  });
});
