// `cardlink mid-insights seed`: N generated MIDs with insights (and their brands and locations) in a live
// program, through the running server's /admin API when one holds DATA_DIR, else on a system of its own.
import { UUID_PATTERN } from "../../platform/ids.ts";
import { command, UsageError, wholeNumber } from "../args.ts";

export const midInsights = command({
  usage: `  mid-insights seed --program ID --count N [--seed S]
                            generate N MIDs with insights (and their brands and locations) in a live program
`,
  options: { program: { type: "string" }, count: { type: "string" }, seed: { type: "string" } },
  positionals: true,
  async run({ values, positionals }, config) {
    if (positionals[0] !== "seed") throw new UsageError("mid-insights: the subcommand is seed (cardlink help mid-insights shows its usage)");
    const programId = values.program;
    if (!programId || !UUID_PATTERN.test(programId)) throw new UsageError("--program: must be a program id (UUID)");
    const { MAX_SEED_COUNT, seedMidInsights } = await import("../../services/mid-insights/seed.ts");
    const count = wholeNumber("count", values.count, 1, MAX_SEED_COUNT);
    const seed = values.seed === undefined ? config.SIMULATOR_SEED : wholeNumber("seed", values.seed, 0, 2 ** 31 - 1);
    const started = performance.now();
    const { answer, dataDirServer } = await import("../connection.ts");
    const server = dataDirServer(config);
    const created = server
      ? (await answer(server.url, server.admin.POST("/admin/programs/{programId}/mid-insights/seed", { params: { path: { programId } }, body: { count, seed } }))).created
      : await (await import("../../app/system.ts")).withSystem(config, "mid-insights seed", ({ services }) =>
          seedMidInsights(services.db, {
            programId,
            count,
            seed,
            now: services.clock.now(),
            onProgress: (n) => process.stderr.write(`\r  ${n} created`),
          }),
        );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(`\ncreated ${created} MID insights in program ${programId} (seed ${seed}) in ${seconds}s\n`);
  },
});
