export { createMidInsightExport, getMidInsightExport, type MidInsightExport, openMidInsightExportFile } from "./exports.ts";
export { countMidInsights, listMidInsights, type MidInsightFilters } from "./list.ts";
export { midIds, type MidInsight, type MidKey, midKeyOf, type MidTouch, recordMissingTransactionLookup, recordTransactionsSeen, requestOffboarding, runOffboardingDue } from "./mid-insights.ts";
export { answerOnboarding } from "./onboarding.ts";
export { MAX_SEED_COUNT, seedMidInsights } from "./seed.ts";
