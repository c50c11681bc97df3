// How the person at the terminal runs cardlink, for the hints the commands print: `npm run cardlink -- …` in a
// checkout of the project (its sources are there: src/main.ts), `npx cardlink …` where the package is installed.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// This module is src/cli/invocation.ts in a checkout, dist/src/cli/invocation.js when built or installed.
const inCheckout = ["../../", "../../../"].some((up) => existsSync(fileURLToPath(new URL(`${up}src/main.ts`, import.meta.url))));

/** The command line that runs `cardlink <args>` here. */
export const cardlinkCommand = (args: string): string => (inCheckout ? `npm run cardlink -- ${args}` : `npx cardlink ${args}`);
