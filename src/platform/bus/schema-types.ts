// TypeScript declarations and zod validators from the bus's Avro schemas (./schemas/*.avsc, the one
// definition of every message): `npm run bus:generate` writes them to ./messages.generated.ts and
// ./validators.generated.ts, and a test fails when either is not what the schemas give. One walk over the
// schemas drives both, so they cannot disagree on a field:
// - records become interfaces and z.object validators, enums unions of their symbols and z.enum, both
//   named as in the schema (a validator `visaTransactionSchema` for the record `VisaTransaction`);
// - ["null", T] is `T | null` and `.nullable()`; a field's default is the validator's `.default()`, as an
//   Avro reader fills it in;
// - a string field with a `cardlink.values` list is the union of those values and a z.enum of them
//   (Avro enum symbols cannot hold "MID-NOT-ASSIGNED");
// - `doc` becomes the declaration's comment.
// Each validator `satisfies` the declaration of its name, so the compiler holds the two together.
import { readdirSync, readFileSync } from "node:fs";
import type { AvroSchema } from "./bus.ts";

type AvroType = string | AvroSchema | AvroType[];

interface Field {
  name: string;
  /** The field's type, in the dialect's words. */
  type: string;
  doc: unknown;
  /** The Avro default, when the schema gives one. */
  default?: unknown;
}

/** How one generated language spells each Avro construct. */
interface Dialect {
  /** The declaration of a named record, and how a field refers to it. */
  record(name: string, fields: Field[], doc: unknown): string;
  enumeration(name: string, symbols: string[], doc: unknown): string;
  ref(name: string): string;
  /** A primitive; a string with a closed list of values (`cardlink.values`) when `values` is given. */
  primitive(type: string, values?: unknown[]): string;
  array(items: string): string;
  map(values: string): string;
  /** A union of `members` (null not among them), nullable when the schema's union holds null. */
  union(members: string[], nullable: boolean): string;
}

const comment = (doc: unknown, indent = "") => (typeof doc === "string" ? `${indent}/** ${doc.replaceAll("*/", "* /")} */\n` : "");
const wrap = (t: string) => (t.includes("|") ? `(${t})` : t);
const literals = (values: unknown[]) => values.map((v) => JSON.stringify(v));

const TS_PRIMITIVES: Record<string, string> = { string: "string", boolean: "boolean", int: "number", long: "number", float: "number", double: "number", bytes: "Buffer", null: "null" };

const typescript: Dialect = {
  record: (name, fields, doc) =>
    `${comment(doc)}export interface ${name} {\n${fields.map((f) => `${comment(f.doc, "  ")}  ${f.name}: ${f.type};\n`).join("")}}\n`,
  enumeration: (name, symbols, doc) => `${comment(doc)}export type ${name} = ${literals(symbols).join(" | ")};\n`,
  ref: (name) => name,
  primitive: (type, values) => (values ? literals(values).join(" | ") : (TS_PRIMITIVES[type] ?? type)),
  array: (items) => `${wrap(items)}[]`,
  map: (values) => `Record<string, ${values}>`,
  union: (members, nullable) => [...members, ...(nullable ? ["null"] : [])].join(" | "),
};

// int is 32-bit; long is as large as a JavaScript number holds exactly (avsc's default long type).
const ZOD_PRIMITIVES: Record<string, string> = { string: "z.string()", boolean: "z.boolean()", int: "z.int32()", long: "z.int()", float: "z.number()", double: "z.number()", bytes: "z.instanceof(Buffer)", null: "z.null()" };

const validatorName = (name: string) => `${name[0]!.toLowerCase()}${name.slice(1)}Schema`;

// A default that is an object or an array is given as a function, so no two values share it.
const defaultOf = (value: unknown) => {
  const json = JSON.stringify(value);
  if (Array.isArray(value)) return `.default(() => ${json})`;
  return typeof value === "object" && value !== null ? `.default(() => (${json}))` : `.default(${json})`;
};

const zod: Dialect = {
  record: (name, fields) =>
    `export const ${validatorName(name)} = z.object({\n${fields.map((f) => `  ${f.name}: ${f.type}${"default" in f ? defaultOf(f.default) : ""},\n`).join("")}}) satisfies z.ZodType<M.${name}>;\n`,
  enumeration: (name, symbols) => `export const ${validatorName(name)} = z.enum([${literals(symbols).join(", ")}]) satisfies z.ZodType<M.${name}>;\n`,
  ref: validatorName,
  primitive: (type, values) => (values ? `z.enum([${literals(values).join(", ")}])` : (ZOD_PRIMITIVES[type] ?? validatorName(type))),
  array: (items) => `z.array(${items})`,
  map: (values) => `z.record(z.string(), ${values})`,
  union: (members, nullable) => `${members.length === 1 ? members[0] : `z.union([${members.join(", ")}])`}${nullable ? ".nullable()" : ""}`,
};

/** The declarations of every named type of `schemas` (each a top-level record) in `dialect`, in order of first use. */
function generate(schemas: AvroSchema[], dialect: Dialect): string {
  const declared = new Map<string, string>();

  function declare(name: string, text: string) {
    const earlier = declared.get(name);
    if (earlier !== undefined && earlier !== text) throw new Error(`${name} is defined twice, differently`);
    declared.set(name, text);
  }

  function typeOf(type: AvroType, field?: AvroSchema): string {
    if (Array.isArray(type)) {
      const members = type.filter((t) => t !== "null");
      return dialect.union(members.map((t) => typeOf(t, field)), members.length < type.length);
    }
    if (typeof type === "string") {
      const values = field?.["cardlink.values"];
      return dialect.primitive(type, type === "string" && Array.isArray(values) ? values : undefined);
    }
    switch (type.type) {
      case "record": {
        const name = String(type.name);
        const fields = (type.fields as AvroSchema[]).map((f) => ({
          name: String(f.name),
          type: typeOf(f.type as AvroType, f),
          doc: f.doc,
          ...("default" in f ? { default: f.default } : {}),
        }));
        // Nested declarations first, so the text compared for a repeated name is complete (and a
        // validator is defined before the record that uses it).
        declare(name, dialect.record(name, fields, type.doc));
        return dialect.ref(name);
      }
      case "enum": {
        const name = String(type.name);
        declare(name, dialect.enumeration(name, type.symbols as string[], type.doc));
        return dialect.ref(name);
      }
      case "array":
        return dialect.array(typeOf(type.items as AvroType));
      case "map":
        return dialect.map(typeOf(type.values as AvroType));
      default:
        return typeOf(type.type as AvroType, field);
    }
  }

  for (const schema of schemas) typeOf(schema);
  return [...declared.values()].join("\n");
}

/** The TypeScript declarations for every named type of `schemas`, in order of first use. */
export const declarationsOf = (schemas: AvroSchema[]): string => generate(schemas, typescript);

/**
 * The zod validators for every named type of `schemas`, in order of first use; each refers to the
 * declarations as `M` (`import type * as M from "./messages.generated.ts"`).
 */
export const validatorsOf = (schemas: AvroSchema[]): string => generate(schemas, zod);

/** Every schema file of ./schemas, by file name. */
export function busSchemas(): AvroSchema[] {
  const dir = new URL("./schemas/", import.meta.url);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".avsc"))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, dir), "utf8")) as AvroSchema);
}

export const GENERATED = new URL("./messages.generated.ts", import.meta.url);
export const GENERATED_VALIDATORS = new URL("./validators.generated.ts", import.meta.url);

const HEADER =
  "// Generated by `npm run bus:generate` from src/platform/bus/schemas/*.avsc (src/platform/bus/schema-types.ts): do not edit.\n" +
  "// The schemas are the one definition of the bus's messages; change them and generate again.\n";

/** The text of messages.generated.ts. */
export function generatedMessages(): string {
  return `${HEADER}\n${declarationsOf(busSchemas())}`;
}

/** The text of validators.generated.ts: a module of `validatorsOf` for the schema files. */
export function generatedValidators(schemas = busSchemas()): string {
  return (
    HEADER +
    "// The structure each message has on the wire (fields, types, enums and closed lists, null, defaults); the\n" +
    "// rules a field keeps beyond it are its consumer's, layered on with src/domain/field-rules.ts.\n" +
    'import { z } from "zod";\nimport type * as M from "./messages.generated.ts";\n\n' +
    validatorsOf(schemas)
  );
}
