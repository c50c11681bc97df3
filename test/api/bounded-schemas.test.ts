// Rule: every array and string a request can carry has a bound the OpenAPI document states (maxItems,
// maxLength, or a closed set of values), so no field of any request can hold an unbounded amount of work.
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/app/openapi-document.ts";

type Schema = Record<string, unknown>;

/** Each unbounded array or string reachable from `schema`, as "where: what is missing". */
function unbounded(doc: Schema, schema: unknown, where: string, seen = new Set<unknown>()): string[] {
  if (schema === null || typeof schema !== "object" || seen.has(schema)) return [];
  seen.add(schema);
  let s = schema as Schema;
  if (typeof s.$ref === "string") {
    const name = s.$ref.replace("#/components/schemas/", "");
    s = ((doc.components as Schema).schemas as Schema)[name] as Schema;
    return unbounded(doc, s, where, seen);
  }
  const found: string[] = [];
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const closed = s.enum !== undefined || s.const !== undefined || s.format === "uuid";
  if (types.includes("array") && s.maxItems === undefined) found.push(`${where}: array without maxItems`);
  if (types.includes("string") && s.maxLength === undefined && !closed) found.push(`${where}: string without maxLength`);
  if (types.includes("object") && s.additionalProperties !== undefined && s.additionalProperties !== false && s.maxProperties === undefined) {
    found.push(`${where}: map without maxProperties`);
  }
  for (const [key, value] of Object.entries(s.properties ?? {})) found.push(...unbounded(doc, value, `${where}.${key}`, seen));
  for (const key of ["items", "additionalProperties", "propertyNames", "not"]) {
    if (s[key] && typeof s[key] === "object") found.push(...unbounded(doc, s[key], `${where}${key === "items" ? "[]" : `{${key}}`}`, seen));
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const [i, sub] of ((s[key] as unknown[]) ?? []).entries()) found.push(...unbounded(doc, sub, `${where}<${key}${i}>`, seen));
  }
  return found;
}

describe("request schemas", () => {
  it("bound every array, string and map a request carries, in the OpenAPI document", async () => {
    const doc = (await openApiDocument()) as Schema;
    const problems: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
      for (const [method, op] of Object.entries(item)) {
        if (typeof op !== "object" || op === null || !("responses" in op)) continue;
        const operation = op as Schema;
        const where = `${method.toUpperCase()} ${path}`;
        for (const parameter of (operation.parameters as Schema[] | undefined) ?? []) {
          if (parameter.in === "path" || parameter.$ref) continue;
          problems.push(...unbounded(doc, parameter.schema, `${where} ${parameter.in} ${String(parameter.name)}`));
        }
        const body = ((operation.requestBody as Schema | undefined)?.content as Schema | undefined)?.["application/json"] as Schema | undefined;
        if (body) problems.push(...unbounded(doc, body.schema, `${where} body`));
      }
    }
    expect(problems).toEqual([]);
  });
});
