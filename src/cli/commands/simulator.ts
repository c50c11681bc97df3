// `cardlink simulator --scheme X`: one scheme's simulator as a process of its own on Kafka, with a store of
// its own (src/app/simulator.ts wires it).
import { command, UsageError } from "../args.ts";
import { schemeOption } from "../scheme-option.ts";

export const simulator = command({
  usage: `  simulator --scheme visa|mastercard|amex
                            run one scheme simulator on Kafka, with a store of its own: SIMULATOR_DATABASE_URL,
                            else PGlite in DATA_DIR/simulators/<scheme> (it never opens DATABASE_URL)
`,
  options: { scheme: { type: "string" } },
  async run({ values }, config) {
    const scheme = schemeOption(values.scheme);
    if (!config.KAFKA_BROKERS) throw new UsageError("simulator: set KAFKA_BROKERS (npm start runs all three simulators on the embedded log)");
    await (await import("../../app/simulator.ts")).runSimulator(config, scheme);
  },
});
