// `cardlink migrate`: applies the database migrations that are missing, and exits.
import { command } from "../args.ts";

export const migrate = command({
  usage: `  migrate                   apply database migrations and exit
`,
  options: {},
  async run(_parsed, config) {
    const { withSystem } = await import("../../app/system.ts");
    // Opening a system applies what is missing: the task is to open one.
    const applied = await withSystem(config, "migrate", async ({ migrations }) => migrations);
    process.stdout.write(applied.length ? `applied ${applied.join(", ")}\n` : "up to date\n");
  },
});
