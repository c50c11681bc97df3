// The single-object codec on its own: CRC-64-AVRO and the Parsing Canonical Form against the Avro
// project's published test vectors, the byte layout, and schema evolution through the schema files.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import avro from "avsc";
import { afterAll, describe, expect, it } from "vitest";
import { crc64Avro, fingerprintOf, parsingCanonicalForm, singleObjectCodec } from "../../../src/platform/bus/single-object-codec.ts";
import { topicSpecs, transactionTopic } from "../../../src/platform/bus/topics.ts";

// apache/avro share/test/data/schema-tests.txt: input schema, its canonical form and its fingerprint
// (Java's signed long), cross-checked there by the Java implementation's direct algorithm. Input null:
// avsc refuses it (an empty union), so only the fingerprint of the canonical form is checked. Case 026
// gives f1 the default true instead of the file's "true", which avsc rightly refuses for a boolean.
const VECTORS: [input: string | null, canonical: string, fingerprint: bigint][] = [
  ['"null"', '"null"', 7195948357588979594n],
  ['"boolean"', '"boolean"', -6970731678124411036n],
  ['{"type":"int"}', '"int"', 8247732601305521295n],
  ['"long"', '"long"', -3434872931120570953n],
  ['"float"', '"float"', 5583340709985441680n],
  ['{"type":"double"}', '"double"', -8181574048448539266n],
  ['"bytes"', '"bytes"', 5746618253357095269n],
  ['"string"', '"string"', -8142146995180207161n],
  [null, "[]", -1241056759729112623n],
  ['[ "int"  ]', '["int"]', -5232228896498058493n],
  ['[ "int" , {"type":"boolean"} ]', '["int","boolean"]', 5392556393470105090n],
  ['{"fields":[], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[]}', -4824392279771201922n],
  ['{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}', '{"name":"x.y.foo","type":"record","fields":[]}', 5916914534497305771n],
  ['{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}', '{"name":"a.b.foo","type":"record","fields":[]}', -4616218487480524110n],
  ['{"fields":[], "type":"record", "name":"foo", "doc":"foo", "aliases":["foo","bar"]}', '{"name":"foo","type":"record","fields":[]}', -4824392279771201922n],
  ['{"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]}', 7843277075252814651n],
  [
    '{"fields":[{"type":"boolean","aliases":[],"name":"f1","default":true},{"order":"descending","name":"f2","doc":"Hello","type":"int"}],"type":"record","name":"foo"}',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}',
    -4860222112080293046n,
  ],
  ['{"type":"enum", "name":"foo", "symbols":["A1"]}', '{"name":"foo","type":"enum","symbols":["A1"]}', -6342190197741309591n],
  ['{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}', '{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}', -4448647247586288245n],
  ['{"name":"foo","type":"fixed","size":15}', '{"name":"foo","type":"fixed","size":15}', 1756455273707447556n],
  ['{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}', '{"name":"x.y.z.foo","type":"fixed","size":32}', -3064184465700546786n],
  ['{ "items":{"type":"null"}, "type":"array"}', '{"type":"array","items":"null"}', -589620603366471059n],
  ['{ "values":"string", "type":"map"}', '{"type":"map","values":"string"}', -8732877298790414990n],
  [
    '{"name":"PigValue","type":"record","fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}',
    '{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}',
    -1759257747318642341n,
  ],
];

describe("CRC-64-AVRO and the Parsing Canonical Form", () => {
  it("give the Avro project's published canonical forms and fingerprints", () => {
    for (const [input, canonical, fingerprint] of VECTORS) {
      expect(BigInt.asIntN(64, crc64Avro(Buffer.from(canonical))), canonical).toBe(fingerprint);
      if (input === null) continue;
      const type = avro.Type.forSchema(JSON.parse(input) as avro.Schema);
      expect(parsingCanonicalForm(type), input).toBe(canonical);
      expect(BigInt.asIntN(64, fingerprintOf(type)), input).toBe(fingerprint);
    }
  });
});

const v1 = {
  type: "record",
  name: "Purchase",
  namespace: "dev.cardlink.test",
  doc: "Only parsing attributes make the fingerprint: this doc is not part of it.",
  fields: [
    { name: "id", type: "string" },
    { name: "amount", type: "double" },
  ],
};
const v2 = { ...v1, fields: [...v1.fields, { name: "channel", type: ["null", "string"], default: null }] };
const v3 = { ...v2, fields: [...v2.fields, { name: "required", type: "string" }] };

describe("single-object codec", () => {
  const dirs: string[] = [];
  /** A schema folder holding these files (paths relative to it). */
  function schemaDir(files: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), "cardlink-schemas-"));
    dirs.push(dir);
    for (const [path, schema] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), JSON.stringify(schema));
    }
    return dir;
  }
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("writes C3 01, the writer schema's fingerprint little-endian, then the Avro binary body", async () => {
    const codec = singleObjectCodec({ schemaDir: schemaDir({}) });
    // The empty record "foo": fingerprint -4824392279771201922 in the Avro test vectors, a body of no bytes.
    await codec.register("empty", { type: "record", name: "foo", fields: [] });
    const empty = await codec.encode("empty", {});
    const expected = Buffer.alloc(10);
    expected.set([0xc3, 0x01]);
    expected.writeBigInt64LE(-4824392279771201922n, 2);
    expect(empty.toString("hex")).toBe(expected.toString("hex"));

    await codec.register("purchases", v1);
    const bytes = await codec.encode("purchases", { id: "p1", amount: 12.5 });
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xc3, 0x01]));
    expect(bytes.readBigUInt64LE(2)).toBe(crc64Avro(Buffer.from('{"name":"dev.cardlink.test.Purchase","type":"record","fields":[{"name":"id","type":"string"},{"name":"amount","type":"double"}]}')));
    expect(bytes.subarray(10)).toEqual(avro.Type.forSchema(v1 as avro.Schema).toBuffer({ id: "p1", amount: 12.5 }));
    expect(await codec.decode("purchases", bytes)).toEqual({ id: "p1", amount: 12.5 });
  });

  it("reads values an earlier version wrote, found among the schema files, as the current version", async () => {
    const older = singleObjectCodec({ schemaDir: schemaDir({ "purchase.avsc": v1 }) });
    await older.register("purchases", v1);
    const written = await older.encode("purchases", { id: "old", amount: 1 });

    const current = singleObjectCodec({ schemaDir: schemaDir({ "purchase.avsc": v2, "previous/purchase.1.avsc": v1 }) });
    await current.register("purchases", v2);
    expect(await current.decode("purchases", written)).toEqual({ id: "old", amount: 1, channel: null });
    expect(await current.decode("purchases", await current.encode("purchases", { id: "new", amount: 2, channel: "online" }))).toEqual({
      id: "new",
      amount: 2,
      channel: "online",
    });
  });

  it("refuses a version that cannot read an earlier one, and bytes it has no schema for", async () => {
    const codec = singleObjectCodec({ schemaDir: schemaDir({ "purchase.avsc": v2, "previous/purchase.1.avsc": v1 }) });
    await expect(codec.register("purchases", v3)).rejects.toThrow(/dev\.cardlink\.test\.Purchase cannot read values written with an earlier version/);
    await codec.register("purchases", v2);

    // A newer Cardlink's v3 is in no schema file this one has.
    const newer = singleObjectCodec({ schemaDir: schemaDir({}) });
    await newer.register("purchases", v3);
    const fromNewer = await newer.encode("purchases", { id: "n", amount: 1, channel: null, required: "x" });
    await expect(codec.decode("purchases", fromNewer)).rejects.toThrow(/no known schema has fingerprint [0-9a-f]{16}/);
    await expect(codec.decode("purchases", Buffer.from("not avro at all"))).rejects.toThrow(/no C3 01 header/);
    await expect(codec.decode("unknown", await codec.encode("purchases", { id: "p", amount: 1, channel: null }))).rejects.toThrow(/unknown: no schema registered/);
  });

  it("refuses a value written with another topic's schema", async () => {
    const codec = singleObjectCodec();
    await codec.register("other", v1);
    await codec.register(transactionTopic("visa"), topicSpecs().find((s) => s.name === transactionTopic("visa"))!.schema);
    await expect(codec.decode(transactionTopic("visa"), await codec.encode("other", { id: "x", amount: 1 }))).rejects.toThrow();
  });

  it("registers every topic of the repository's schema files, each compatible with its earlier versions", async () => {
    const codec = singleObjectCodec();
    const specs = topicSpecs();
    for (const spec of specs) await codec.register(spec.name, spec.schema);
    const deadLetter = {
      topic: "visa.transactions",
      partition: 0,
      offset: 7,
      key: "card",
      reason: "why",
      payload: "{}",
      failedBy: "qualifier",
      failedAt: "2026-01-05T12:00:00.000Z",
    };
    expect(await codec.decode("visa.transactions.dead-letter", await codec.encode("visa.transactions.dead-letter", deadLetter))).toEqual(deadLetter);
  });
});
