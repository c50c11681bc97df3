// The k6 scenarios in load/, checked without k6: every script parses as an ES module and imports only k6's
// own modules and files beside it; each scenario, evaluated with stand-ins for the k6 modules, exports bounded
// options whose thresholds name real metrics, a setup and a default function, and reads its environment
// strictly; the helpers they share (test card numbers, the local-address guard, the webhook sink) work.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { luhnCheckDigit, schemeNumbers, testCardNumbers } from "../../load/card-numbers.js";
import { localUrl } from "../../load/local-url.js";
import { createSink } from "../../load/webhook-sink.ts";
import { checkCardNumber, FAILING_TEST_NUMBERS } from "../../src/domain/card-number.ts";
import { luhnCheckDigit as productLuhnCheckDigit } from "../../src/domain/luhn.ts";

// Stand-ins for the modules k6 provides; the metrics record their names so thresholds can be checked.
const declared = vi.hoisted(() => new Set<string>());
vi.mock("k6/http", () => ({ default: { request: vi.fn(), batch: vi.fn(), get: vi.fn() } }));
vi.mock("k6", () => ({ check: vi.fn(), sleep: vi.fn() }));
vi.mock("k6/metrics", () => {
  const metric = class {
    constructor(name: string) {
      declared.add(name);
    }
    add() {}
  };
  return { Trend: metric, Counter: metric, Rate: metric, Gauge: metric };
});

interface Scenario {
  options: {
    scenarios: Record<string, { executor: string; rate: number; duration: string; preAllocatedVUs: number; maxVUs: number }>;
    thresholds: Record<string, unknown>;
    setupTimeout: string;
  };
  setup: unknown;
  default: unknown;
}

/** A scenario module evaluated afresh under `env` (k6's __ENV). */
async function evaluate(name: string, env: Record<string, string> = {}): Promise<Scenario> {
  vi.resetModules();
  declared.clear();
  (globalThis as { __ENV?: Record<string, string> }).__ENV = env;
  return (await import(`../../load/${name}.js`)) as Scenario;
}

const BUILT_IN_METRICS = new Set(["http_req_failed", "http_req_duration", "http_reqs", "checks", "dropped_iterations", "iteration_duration"]);

const loadDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../load");
const scripts = readdirSync(loadDir).filter((f) => f.endsWith(".js"));
const SCENARIOS = ["api-crud", "mid-insights", "test-transactions"];
// The modules k6 itself provides (https://grafana.com/docs/k6/latest/javascript-api/).
const K6_MODULES = new Set(["k6", "k6/http", "k6/metrics", "k6/execution", "k6/data", "k6/encoding", "k6/crypto", "k6/timers"]);

function parse(file: string) {
  const text = readFileSync(join(loadDir, file), "utf8");
  const { diagnostics = [] } = ts.transpileModule(text, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { allowJs: true, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return { text, source: ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS), diagnostics };
}

const isExported = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const isDefault = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** The object literal `export const options = {…}` of a script, if any. */
function exportedOptions(source: ts.SourceFile): ts.ObjectLiteralExpression | undefined {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement) || !isExported(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.name.text === "options" && d.initializer && ts.isObjectLiteralExpression(d.initializer)) return d.initializer;
    }
  }
  return undefined;
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  const p = object.properties.find((x) => ts.isPropertyAssignment(x) && (ts.isIdentifier(x.name) || ts.isStringLiteral(x.name)) && x.name.text === name);
  return p && ts.isPropertyAssignment(p) ? p.initializer : undefined;
}

function exportedFunctions(source: ts.SourceFile): { names: Set<string>; hasDefault: boolean } {
  const names = new Set<string>();
  let hasDefault = false;
  for (const s of source.statements) {
    if (ts.isFunctionDeclaration(s) && isExported(s)) {
      if (isDefault(s)) hasDefault = true;
      else if (s.name) names.add(s.name.text);
    }
  }
  return { names, hasDefault };
}

describe("the k6 scripts in load/", () => {
  it("finds the three scenarios and their shared modules", () => {
    expect(scripts).toEqual(expect.arrayContaining([...SCENARIOS.map((s) => `${s}.js`), "setup.js", "card-numbers.js", "local-url.js"]));
  });

  it.each(scripts)("%s parses as an ES module and imports only k6 modules and files beside it", (file) => {
    const { source, diagnostics } = parse(file);
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
    const imports = source.statements.filter(ts.isImportDeclaration).map((i) => (i.moduleSpecifier as ts.StringLiteral).text);
    for (const spec of imports) {
      if (spec.startsWith("./")) expect(existsSync(join(loadDir, spec)), `${file} imports ${spec}`).toBe(true);
      else expect(K6_MODULES.has(spec), `${file} imports ${spec}`).toBe(true);
    }
    // No require(), no import(): k6 resolves only static imports, and the suite checks those.
    let dynamic = false;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"))) dynamic = true;
      ts.forEachChild(node, visit);
    };
    visit(source);
    expect(dynamic).toBe(false);
  });

  it.each(scripts)("%s names no address but this machine's (example.com only as data)", (file) => {
    const urls = readFileSync(join(loadDir, file), "utf8").match(/https?:\/\/[^\s"'`)]+/g) ?? [];
    for (const url of urls) expect(url, `${file}: ${url}`).toMatch(/^https?:\/\/(localhost|127\.0\.0\.1|\[::1\]|example\.com)[:/]/);
  });

  it.each(SCENARIOS)("%s exports options with scenarios and thresholds, a setup and a default function", (name) => {
    const { source } = parse(`${name}.js`);
    const options = exportedOptions(source);
    expect(options, `${name}: export const options = {…}`).toBeDefined();
    for (const field of ["scenarios", "thresholds", "setupTimeout"]) expect(property(options!, field), field).toBeDefined();
    const { names, hasDefault } = exportedFunctions(source);
    expect(hasDefault).toBe(true);
    expect(names.has("setup")).toBe(true);
  });
});

describe("each scenario, evaluated", () => {
  it.each(SCENARIOS)("%s: one constant-arrival-rate scenario, bounded, with thresholds on real metrics", async (name) => {
    const m = await evaluate(name);
    expect(typeof m.default).toBe("function");
    expect(typeof m.setup).toBe("function");
    const entries = Object.entries(m.options.scenarios);
    expect(entries).toHaveLength(1);
    const [scenarioName, scenario] = entries[0]!;
    expect(scenario).toMatchObject({ executor: "constant-arrival-rate", duration: "60s" });
    expect(scenario.maxVUs).toBeLessThanOrEqual(1000);
    const thresholds = Object.entries(m.options.thresholds);
    expect(thresholds.length).toBeGreaterThan(3);
    for (const [key, rules] of thresholds) {
      const [, metric, tag, value] = /^(\w+)(?:\{(\w+):(.+)\})?$/.exec(key) ?? [];
      expect(BUILT_IN_METRICS.has(metric!) || declared.has(metric!), `${key}: a metric k6 or the script defines`).toBe(true);
      if (tag === "scenario") expect(value).toBe(scenarioName);
      expect(Array.isArray(rules) && rules.length > 0 && rules.every((r) => typeof r === "string")).toBe(true);
    }
    expect(thresholds.map(([k]) => k)).toEqual(expect.arrayContaining([`http_req_failed{scenario:${scenarioName}}`, `checks{scenario:${scenarioName}}`]));
  });

  it.each(SCENARIOS)("%s: RATE, DURATION, VUS and MAX_VUS shape the scenario", async (name) => {
    const m = await evaluate(name, { RATE: "5", DURATION: "1m30s", VUS: "3", MAX_VUS: "4" });
    expect(Object.values(m.options.scenarios)[0]).toMatchObject({ rate: 5, duration: "1m30s", preAllocatedVUs: 3, maxVUs: 4 });
    expect(m.options.thresholds.dropped_iterations).toEqual(["count<=5"]);
  });

  it.each([
    [{ RATE: "0" }, /^RATE: must be a whole number from 1 to 1000/],
    [{ RATE: "2.5" }, /^RATE: must be a whole number/],
    [{ DURATION: "2h" }, /^DURATION: must be a duration like 45s, 2m or 1m30s, up to 1h/],
    [{ DURATION: "soon" }, /^DURATION: must be a duration/],
    [{ VUS: "3", MAX_VUS: "2" }, /^MAX_VUS: must be a whole number from 3 to 1000/],
    [{ BASE_URL: "http://10.0.0.1:3000" }, /^BASE_URL: must be an http\(s\) URL on localhost/],
    [{ HOOK_URL: "https://hooks.example.com/in" }, /^HOOK_URL: must be an http\(s\) URL on localhost/],
    [{ CLEAR_SHARE: "1.5" }, /^CLEAR_SHARE: must be a number from 0 to 1/],
  ])("test-transactions refuses %o before sending anything", async (env, message) => {
    await expect(evaluate("test-transactions", env)).rejects.toThrow(message);
  });

  it("test-transactions adds the webhook thresholds only with HOOK_URL", async () => {
    expect((await evaluate("test-transactions")).options.thresholds).not.toHaveProperty("webhook_lag");
    const withHook = await evaluate("test-transactions", { HOOK_URL: "http://127.0.0.1:4500/webhooks" });
    expect(withHook.options.thresholds).toMatchObject({ webhook_lag: ["p(95)<2000"], webhooks_missing: ["count==0"] });
  });
});

describe("test card numbers", () => {
  it("computes the same Luhn digit as the product", () => {
    for (const payload of ["7992739871", "444400000000400", "3400000000003", "0", "5555000000005"]) {
      expect(luhnCheckDigit(payload)).toBe(productLuhnCheckDigit(payload));
    }
  });

  it("gives 97 Visa, 97 Mastercard and 14 Amex numbers that a test key enrols with their scheme, none of them a failing one", () => {
    for (const [scheme, size] of [["visa", 97], ["mastercard", 97], ["amex", 14]] as const) {
      const numbers = schemeNumbers(scheme);
      expect(new Set(numbers).size).toBe(size);
      for (const n of numbers) expect(checkCardNumber(n, false), n).toMatchObject({ ok: true, scheme });
      expect(numbers.filter((n) => FAILING_TEST_NUMBERS.some((f) => f.range.test(n)))).toEqual([]);
    }
  });

  it("cycles the schemes", () => {
    expect(testCardNumbers(4).map((n) => checkCardNumber(n, false))).toMatchObject([
      { scheme: "visa" },
      { scheme: "mastercard" },
      { scheme: "amex" },
      { scheme: "visa" },
    ]);
  });
});

describe("the local-address guard", () => {
  it("accepts this machine's addresses and drops trailing slashes", () => {
    expect(localUrl("BASE_URL", "http://localhost:3000/")).toBe("http://localhost:3000");
    expect(localUrl("BASE_URL", "http://127.0.0.1:3300")).toBe("http://127.0.0.1:3300");
    expect(localUrl("HOOK_URL", "http://[::1]:4500/webhooks")).toBe("http://[::1]:4500/webhooks");
  });

  it.each(["http://10.0.0.1:3000", "https://api.example.com", "http://localhost.example.com", "http://localhost@example.com", "ftp://localhost", "", undefined])(
    "refuses %s naming the variable",
    (value) => {
      expect(() => localUrl("BASE_URL", value)).toThrow(/^BASE_URL: must be an http\(s\) URL on localhost/);
    },
  );
});

describe("the webhook sink", () => {
  const sink = createSink(() => Date.parse("2026-01-05T12:00:00.250Z"));
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((ok) => sink.listen(0, "127.0.0.1", ok));
    url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((ok) => sink.close(() => ok())));

  it("answers deliveries 204 and reports them per program with their lag", async () => {
    const delivery = (event: string, programId: string) =>
      fetch(`${url}/webhooks`, {
        method: "POST",
        body: JSON.stringify({ id: "e", event, created: "2026-01-05T12:00:00.000Z", data: { programId } }),
      });
    expect((await delivery("transaction.auth", "p1")).status).toBe(204);
    expect((await delivery("transaction.auth.qualified", "p1")).status).toBe(204);
    expect((await delivery("transaction.auth", "p2")).status).toBe(204);
    const stats = await (await fetch(`${url}/webhooks?programId=p1`)).json();
    expect(stats).toEqual({ received: 2, byEvent: { "transaction.auth": 1, "transaction.auth.qualified": 1 }, lagMs: [250, 250] });
    expect(await (await fetch(`${url}/?programId=nobody`)).json()).toEqual({ received: 0, byEvent: {}, lagMs: [] });
  });
});
