// `cardlink faults get|set|clear`: a simulated network's faults, through the running service's /admin API.
import { command, print, UsageError } from "../args.ts";
import { schemeOption } from "../scheme-option.ts";

const FAULT_FLAGS = {
  "latency-ms": "latencyMs",
  "drop-rate": "dropRate",
  "duplicate-rate": "duplicateRate",
  "clearing-before-auth-rate": "clearingBeforeAuthRate",
  "onboarding-failure-rate": "onboardingFailureRate",
  "lookup-error-rate": "lookupErrorRate",
} as const;

const text = { type: "string" } as const;

export const faults = command({
  usage: `  faults get|clear --scheme S [--url URL]
  faults set --scheme S [--latency-ms N] [--drop-rate R] [--duplicate-rate R] [--clearing-before-auth-rate R]
           [--onboarding-failure-rate R] [--lookup-error-rate R] [--lookup-error-code CODE] [--url URL]
                            read, change or remove a simulated network's faults (through /admin)
`,
  options: {
    scheme: text,
    url: text,
    "lookup-error-code": text,
    "latency-ms": text,
    "drop-rate": text,
    "duplicate-rate": text,
    "clearing-before-auth-rate": text,
    "onboarding-failure-rate": text,
    "lookup-error-rate": text,
  },
  positionals: true,
  async run({ values, positionals }, config) {
    const sub = positionals[0];
    if (sub !== "get" && sub !== "set" && sub !== "clear") throw new UsageError("faults: the subcommand is get, set or clear (cardlink help faults shows its usage)");
    const path = { params: { path: { scheme: schemeOption(values.scheme) } } };
    const changes: Record<string, unknown> = {};
    if (sub === "set") {
      for (const [flag, field] of Object.entries(FAULT_FLAGS)) {
        const value = values[flag as keyof typeof FAULT_FLAGS];
        if (value === undefined) continue;
        if (value.trim() === "" || !Number.isFinite(Number(value))) throw new UsageError(`--${flag}: must be a number`);
        changes[field] = Number(value);
      }
      if (values["lookup-error-code"] !== undefined) changes.lookupErrorCode = values["lookup-error-code"];
      if (Object.keys(changes).length === 0) throw new UsageError("faults set: give at least one fault to change");
    }
    const { answer, connectAdmin } = await import("../connection.ts");
    const { url, admin } = connectAdmin(config, values);
    if (sub === "set") return print([JSON.stringify(await answer(url, admin.PATCH("/admin/simulators/{scheme}/faults", { ...path, body: changes })), null, 2)]);
    if (sub === "clear") await answer(url, admin.DELETE("/admin/simulators/{scheme}/faults", path));
    print([JSON.stringify(await answer(url, admin.GET("/admin/simulators/{scheme}/faults", path)), null, 2)]);
  },
});
