// The service's client of the simulated networks: faults, traffic runs and the clock as settings on the bus,
// test purchases and their follow-ups, `trigger`. What the rest of Cardlink may use of it.
export { createSimulatorControl, faultsShape, recordTrafficProgress, type SimulatorControl, trafficOptionsSchema } from "./control.ts";
export { clearTestPurchase, expireTestPurchase, incrementTestPurchase, refundTestPurchase, voidTestPurchase } from "./follow-ups.ts";
export { relayTestPurchases, sendTestPurchase, type Sent } from "./test-transactions.ts";
export { forgetEnvironmentCommand, recordEnvironmentClockAck } from "./environment-clock.ts";
export { ensureFixtures, trigger, TRIGGER_BEHAVIOURS, TRIGGER_EVENTS, type TriggerOverrides } from "./trigger.ts";
