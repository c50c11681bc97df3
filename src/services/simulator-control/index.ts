export { createSimulatorControl, faultsShape, recordTrafficProgress, type SimulatorControl, trafficOptionsSchema } from "./control.ts";
export { clearTestPurchase, refundTestPurchase, relayTestPurchases, sendTestPurchase, type Sent, voidTestPurchase } from "./test-transactions.ts";
export { ensureFixtures, trigger, TRIGGER_EVENTS, type TriggerOverrides } from "./trigger.ts";
