// `cardlink simulate`: writes a scheme simulator's dry run (simulators/host/dry-run.ts) to --out.
import { writeFileSync } from "node:fs";
import { command, print, UsageError, wholeNumber } from "../args.ts";
import { schemeOption } from "../scheme-option.ts";

const text = { type: "string" } as const;

export const simulate = command({
  usage: `  simulate --scheme visa|mastercard|amex --seed N --count N --out FILE
           [--cards N] [--merchants N] [--start ISO] [--gap SECONDS]
                            dry run: the native messages the simulator would publish, one JSON per line
`,
  options: { scheme: text, seed: text, count: text, out: text, cards: text, merchants: text, start: text, gap: text },
  async run({ values }) {
    const scheme = schemeOption(values.scheme);
    if (!values.out) throw new UsageError("--out: give the file to write");
    const { DRY_RUN_DEFAULTS, dryRunOf } = await import("../../../simulators/host/dry-run.ts");
    const start = values.start === undefined ? DRY_RUN_DEFAULTS.start : new Date(values.start);
    if (Number.isNaN(start.getTime())) throw new UsageError("--start: must be an ISO 8601 instant");
    const orDefault = (option: "cards" | "merchants" | "gap", fallback: number) => (values[option] === undefined ? fallback : wholeNumber(option, values[option], 1));
    const lines = dryRunOf(scheme, {
      seed: wholeNumber("seed", values.seed, 0),
      count: wholeNumber("count", values.count, 1),
      start,
      cards: orDefault("cards", DRY_RUN_DEFAULTS.cards),
      merchants: orDefault("merchants", DRY_RUN_DEFAULTS.merchants),
      meanGapSeconds: orDefault("gap", DRY_RUN_DEFAULTS.meanGapSeconds),
    });
    writeFileSync(values.out, lines);
    print([`wrote ${values.out}`]);
  },
});
