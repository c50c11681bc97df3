// MID insights: MID records and their insights, a network's onboarding answer, offboarding, exports (and
// their e-mail) and the generated seed. What the rest of Cardlink may use of it.
export { EXPORT_MAIL_STATUSES, type ExportMail, type ExportMailState, type ExportMailStatus, getExportMail, listExportMail, sendDueExportMail } from "./export-mail.ts";
export { createMidInsightExport, getMidInsightExport, type MidInsightExport, openMidInsightExportFile } from "./exports.ts";
export { countMidInsights, listMidInsights, type MidInsightFilters } from "./list.ts";
export { midIds, type MidInsight, type MidKey, midKeyOf } from "./mid-insights.ts";
export { requestOffboarding, runOffboardingDue } from "./offboarding.ts";
export { answerOnboarding } from "./onboarding.ts";
export { MAX_SEED_COUNT, seedMidInsights } from "./seed.ts";
export { type MidTouch, recordMissingTransactionLookup, recordTransactionsSeen, transactionsSeenPart } from "./writers.ts";
