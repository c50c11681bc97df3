// `cardlink traffic start|stop|status`: the simulators' generated traffic, through the running service's /admin API.
import type { Schemas } from "../../../clients/typescript/src/index.ts";
import { command, print, UsageError, wholeNumber } from "../args.ts";

const text = { type: "string" } as const;

export const traffic = command({
  usage: `  traffic start --rate R --seed N [--duration SECONDS] [--schemes visa,amex] [--program ID] [--url URL]
  traffic stop|status [--url URL]
                            generated traffic: start, stop, and what it sent (through /admin)
`,
  options: { rate: text, seed: text, duration: text, schemes: text, program: text, url: text },
  positionals: true,
  async run({ values, positionals }, config) {
    const sub = positionals[0];
    if (sub !== "start" && sub !== "stop" && sub !== "status") throw new UsageError("traffic: the subcommand is start, stop or status (cardlink help traffic shows its usage)");
    // Checked here as far as a shell can get it wrong; the service checks the rest (the schemes, the program).
    const body: Record<string, unknown> = {};
    if (sub === "start") {
      const rate = Number(values.rate);
      if (values.rate === undefined || !Number.isFinite(rate) || rate <= 0) throw new UsageError("--rate: must be a number of purchases per second");
      Object.assign(body, { rate, seed: values.seed === undefined ? config.SIMULATOR_SEED : wholeNumber("seed", values.seed, 0) });
      if (values.duration !== undefined) body.durationSeconds = Number(values.duration);
      if (values.schemes !== undefined) body.schemes = values.schemes.split(",").map((s) => s.trim());
      if (values.program !== undefined) body.programId = values.program;
    }
    const { answer, connectAdmin } = await import("../connection.ts");
    const { url, admin } = connectAdmin(config, values);
    const answered =
      sub === "start"
        ? await answer(url, admin.POST("/admin/simulators/traffic/start", { body: body as Schemas["TrafficOptions"] }))
        : sub === "stop"
          ? await answer(url, admin.POST("/admin/simulators/traffic/stop"))
          : await answer(url, admin.GET("/admin/simulators/traffic"));
    print([JSON.stringify(answered, null, 2)]);
  },
});
