// The layer rules in eslint.config.js (domain ← platform ← features ← transports ← the composition root;
// features met at their faces; no role's internals; the simulated networks on the bus's contracts; nothing
// imports the command line but its entry; no dashboard page imports another): each arrow that must not come
// back fails lint. Linted as text at the path the import would be written in, so the tree itself stays untouched.
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const cwd = fileURLToPath(new URL("../../", import.meta.url));
const eslint = new ESLint({ cwd });

async function restricted(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${cwd}${path}` });
  return result!.messages
    .filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "@typescript-eslint/no-restricted-imports")
    .map((m) => m.message);
}

describe("layer rules", () => {
  it.each([
    ["src/services/catalog/example.ts", 'import type { AppEnv } from "../../api/context.ts";\nexport type E = AppEnv;\n'],
    ["src/services/catalog/example.ts", 'import { ApiError } from "../../api/errors.ts";\nexport const e = ApiError;\n'],
    ["src/services/offers/example.ts", 'import { layout } from "../../dashboard/layout.tsx";\nexport const l = layout;\n'],
    ["src/services/webhooks/example.ts", 'import { createDispatcher } from "../../dispatcher/dispatcher.ts";\nexport const c = createDispatcher;\n'],
    ["src/domain/example.ts", 'import type { Db } from "../platform/db.ts";\nexport type D = Db;\n'],
    ["src/domain/example.ts", 'import type { Bus } from "../platform/bus/bus.ts";\nexport type B = Bus;\n'],
    ["src/domain/example.ts", 'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n'],
    ["src/domain/example.ts", 'import postgres from "postgres";\nexport const p = postgres;\n'],
    ["src/platform/example.ts", 'import { getProgram } from "../services/catalog/index.ts";\nexport const g = getProgram;\n'],
    ["src/platform/bus/example.ts", 'import type { AppEnv } from "../../api/context.ts";\nexport type E = AppEnv;\n'],
    ["src/platform/example.ts", 'import { ADAPTERS } from "../../simulators/schemes/index.ts";\nexport const a = ADAPTERS;\n'],
    ["src/services/offers/example.ts", 'import { getProgram } from "../catalog/programs.ts";\nexport const g = getProgram;\n'],
    ["src/api/routes/example.ts", 'import { getProgram } from "../../services/catalog/programs.ts";\nexport const g = getProgram;\n'],
    ["src/qualifier/example.ts", 'import { indexVersions } from "../services/transactions/index-versions.ts";\nexport const i = indexVersions;\n'],
    ["src/cli/commands/example.ts", 'import { createAccount } from "../../services/accounts/accounts.ts";\nexport const c = createAccount;\n'],
    ["src/services/transactions/example.ts", 'import type { Outcome } from "../../qualifier/batch.ts";\nexport type O = Outcome;\n'],
    ["src/services/catalog/example.ts", 'import { faultsSchema } from "../../../simulators/engine/faults.ts";\nexport const f = faultsSchema;\n'],
    ["src/services/simulator-control/example.ts", 'import { NetworkSimulator } from "../../../simulators/engine/network.ts";\nexport const n = NetworkSimulator;\n'],
    ["src/api/routes/example.ts", 'import { processBatch } from "../../qualifier/batch.ts";\nexport const p = processBatch;\n'],
    ["src/api/example.ts", 'import { mountDashboard } from "../dashboard/index.tsx";\nexport const m = mountDashboard;\n'],
    ["src/example.ts", 'import { normalise } from "./qualifier/normalise/index.ts";\nexport const n = normalise;\n'],
    ["src/api/routes/admin/example.ts", 'import { faultsShape } from "../../../../simulators/engine/faults.ts";\nexport const f = faultsShape;\n'],
    ["simulators/engine/example.ts", 'import type { Db } from "../../src/platform/db.ts";\nexport type D = Db;\n'],
    ["simulators/engine/example.ts", 'import { validationError } from "../../src/api/validation.ts";\nexport const v = validationError;\n'],
    ["simulators/engine/example.ts", 'import { openBus } from "../../src/platform/bus/index.ts";\nexport const o = openBus;\n'],
    ["simulators/engine/example.ts", 'import { startSimulators } from "../host/hub.ts";\nexport const s = startSimulators;\n'],
    ["simulators/schemes/example.ts", 'import { readCredentials } from "../../src/platform/config/credentials.ts";\nexport const r = readCredentials;\n'],
    ["simulators/host/example.ts", 'import type { SimulatorControl } from "../../src/services/simulator-control/index.ts";\nexport type S = SimulatorControl;\n'],
    ["simulators/host/example.ts", 'import { getProgram } from "../../src/services/catalog/index.ts";\nexport const g = getProgram;\n'],
    ["src/api/example.ts", 'import type { Runtime } from "../app/runtime.ts";\nexport type S = Runtime;\n'],
    ["src/services/catalog/example.ts", 'import { openPglite } from "../../platform/db.ts";\nexport const o = openPglite;\n'],
    ["src/api/routes/example.ts", 'import { startRoles } from "../../app/roles.ts";\nexport const s = startRoles;\n'],
    ["src/dashboard/example.ts", 'import { openPostgres } from "../platform/db.ts";\nexport const o = openPostgres;\n'],
    ["src/workers/example.ts", 'import { openBus } from "../platform/bus/index.ts";\nexport const o = openBus;\n'],
    ["src/dispatcher/example.ts", 'import { createEmbeddedLog } from "../platform/bus/embedded-log.ts";\nexport const c = createEmbeddedLog;\n'],
    ["simulators/host/example.ts", 'import { createKafkaBus } from "../../src/platform/bus/kafka.ts";\nexport const c = createKafkaBus;\n'],
    ["src/qualifier/example.ts", 'import { createClock } from "../platform/clock/index.ts";\nexport const c = createClock;\n'],
    ["src/api/routes/example.ts", 'import { UsageError } from "../../cli/args.ts";\nexport const u = UsageError;\n'],
    ["src/app/example.ts", 'import type { Command } from "../cli/args.ts";\nexport type C = Command;\n'],
    ["src/qualifier/example.ts", 'import { connect } from "../cli/connection.ts";\nexport const c = connect;\n'],
    ["src/dispatcher/example.ts", 'import { registerOwnHooks } from "../cli/own-hooks.ts";\nexport const r = registerOwnHooks;\n'],
    ["src/services/catalog/example.ts", 'import { serverUrl } from "../../cli/connection.ts";\nexport const s = serverUrl;\n'],
    ["simulators/host/example.ts", 'import { serverUrl } from "../../src/cli/connection.ts";\nexport const s = serverUrl;\n'],
    ["simulators/engine/example.ts", 'import { UsageError } from "../../src/cli/args.ts";\nexport const u = UsageError;\n'],
    ["src/cli/commands/example.ts", 'import { normalise } from "../../qualifier/normalise/index.ts";\nexport const n = normalise;\n'],
    ["src/dashboard/pages/example.tsx", 'import { mountWebhooks } from "./webhooks.tsx";\nexport const m = mountWebhooks;\n'],
    ["src/dashboard/pages/offers/example.tsx", 'import { mountEvents } from "../events.tsx";\nexport const m = mountEvents;\n'],
    ["src/dashboard/pages/offers/example.tsx", 'import { listOffers } from "../../../services/offers/offers.ts";\nexport const l = listOffers;\n'],
  ])("%s may not %s", async (path, source) => {
    expect(await restricted(path, source)).toHaveLength(1);
  }, 60_000);

  it.each([
    ["src/services/catalog/example.ts", 'import { money } from "../../domain/money.ts";\nexport const m = money;\n'],
    ["src/services/catalog/example.ts", 'import type { Db } from "../../platform/db.ts";\nexport type D = Db;\n'],
    ["src/services/offers/example.ts", 'import { getProgram } from "../catalog/index.ts";\nexport const g = getProgram;\n'],
    ["src/services/offers/example.ts", 'import { listOffers } from "./offers.ts";\nexport const l = listOffers;\n'],
    ["src/services/simulator-control/example.ts", 'import { faultsSchema } from "../../../simulators/engine/faults.ts";\nexport const f = faultsSchema;\n'],
    ["src/api/routes/example.ts", 'import { getProgram } from "../../services/catalog/index.ts";\nexport const g = getProgram;\n'],
    ["src/platform/bus/example.ts", 'import type { Db } from "../db.ts";\nexport type D = Db;\n'],
    ["src/domain/example.ts", 'import { luhnValid } from "./luhn.ts";\nexport const l = luhnValid;\n'],
    ["src/example.ts", 'import { startQualifier } from "./qualifier/index.ts";\nexport const s = startQualifier;\n'],
    ["src/example.ts", 'import { startSimulators } from "../simulators/host/hub.ts";\nexport const s = startSimulators;\n'],
    ["simulators/engine/example.ts", 'import type { VisaTransaction } from "../../src/platform/bus/messages.ts";\nexport type V = VisaTransaction;\n'],
    ["simulators/engine/example.ts", 'import { roundMoney } from "../../src/domain/money.ts";\nexport const r = roundMoney;\n'],
    ["simulators/schemes/example.ts", 'import type { Clock } from "../../src/platform/clock/index.ts";\nexport type C = Clock;\n'],
    ["simulators/host/example.ts", 'import { migrate } from "../../src/platform/migrate.ts";\nexport const m = migrate;\n'],
    ["src/dispatcher/example.ts", 'import type { Clock } from "../platform/clock/index.ts";\nexport type C = Clock;\n'],
    ["src/platform/bus/example.ts", 'import { createEmbeddedLog } from "./embedded-log.ts";\nexport const c = createEmbeddedLog;\n'],
    ["src/main.ts", 'import { runCli } from "./cli/index.ts";\nexport const r = runCli;\n'],
    ["src/cli/commands/example.ts", 'import { openSystem } from "../../app/system.ts";\nexport const o = openSystem;\n'],
    ["src/cli/commands/example.ts", 'import { startSimulators } from "../../../simulators/host/hub.ts";\nexport const s = startSimulators;\n'],
    ["src/cli/flows/example.ts", 'import { answer } from "../connection.ts";\nexport const a = answer;\n'],
    ["src/dashboard/pages/example.tsx", 'import { DeliveryTable } from "../components/deliveries.tsx";\nexport const d = DeliveryTable;\n'],
    ["src/dashboard/pages/offers/example.tsx", 'import { GroupNav } from "./groups.tsx";\nexport const g = GroupNav;\n'],
    ["src/dashboard/pages/offers/example.tsx", 'import { Layout } from "../../layout.tsx";\nexport const l = Layout;\n'],
  ])("%s may %s", async (path, source) => {
    expect(await restricted(path, source)).toEqual([]);
  }, 60_000);
});
