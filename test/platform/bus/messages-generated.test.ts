// The bus's TypeScript declarations come from its Avro schemas (src/platform/bus/schema-types.ts): the generated
// file is what the schemas give, the schemas' Scheme enum is the domain's, and the generator's rules hold.
import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as Generated from "../../../src/platform/bus/messages.generated.ts";
import { GENERATED, busSchemas, declarationsOf, generatedMessages } from "../../../src/platform/bus/schema-types.ts";
import { MISSING_REQUEST_ERRORS } from "../../../src/domain/missing-transaction.ts";
import { OUTER_SCHEMA } from "./fixtures/generator-schema.ts";
import { TARGETING_NAMES, type TargetingName } from "../../../src/domain/offer.ts";
import { SCHEMES, type Scheme } from "../../../src/domain/scheme.ts";

describe("bus message declarations", () => {
  it("messages.generated.ts is what the schemas give (run `npm run bus:generate` after changing a schema)", () => {
    expect(readFileSync(GENERATED, "utf8")).toBe(generatedMessages());
  });

  it("the schemas' Scheme enum and the look-up error codes are the domain's", () => {
    expectTypeOf<Generated.Scheme>().toEqualTypeOf<Scheme>();
    expectTypeOf<Generated.LookupError["code"]>().toEqualTypeOf<(typeof MISSING_REQUEST_ERRORS)[number]>();
    const text = JSON.stringify(busSchemas());
    for (const match of text.matchAll(/"name":"Scheme","symbols":(\[[^\]]*\])/g)) expect(JSON.parse(match[1]!)).toEqual([...SCHEMES]);
    expect(text).toContain(`"cardlink.values":${JSON.stringify(MISSING_REQUEST_ERRORS)}`);
  });

  it("the schemas' targeting tags are the domain's segment names", () => {
    expectTypeOf<Generated.VisaTransaction["targetingTag"]>().toEqualTypeOf<TargetingName | null>();
    expectTypeOf<Generated.SimulatorCommand["targetingTag"]>().toEqualTypeOf<TargetingName | null>();
    const tags = busSchemas().flatMap((s) => (s.fields as { name: string; "cardlink.values"?: unknown }[]).filter((f) => f.name === "targetingTag"));
    expect(tags).toHaveLength(4);
    for (const tag of tags) expect(tag["cardlink.values"]).toEqual([...TARGETING_NAMES]);
  });

  it("records become interfaces, enums unions, [null, T] is T | null, arrays of unions are parenthesised, docs are comments", () => {
    const text = declarationsOf([OUTER_SCHEMA]);
    expect(text).toBe(
      'export type Kind = "A" | "B";\n\n' +
        "export interface Inner {\n  n: number;\n}\n\n" +
        "/** An outer record. */\nexport interface Outer {\n  kind: Kind;\n  /** Maybe. */\n  inner: Inner | null;\n  tags: (string | null)[];\n" +
        '  status: "OK" | "MID-NOT-ASSIGNED";\n}\n',
    );
  });

  it("refuses a name defined twice differently", () => {
    const record = (field: string) => ({ type: "record", name: "Twice", fields: [{ name: field, type: "string" }] });
    expect(() => declarationsOf([record("a"), record("a")])).not.toThrow();
    expect(() => declarationsOf([record("a"), record("b")])).toThrow("Twice is defined twice, differently");
  });
});
