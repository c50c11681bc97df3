// Transactions: the record the qualifier writes, the messages applied, return periods, the qualifier's index
// versions and a program's overview. What the rest of Cardlink may use of it.
export { indexVersions, recordedWithVersions } from "./index-versions.ts";
export { messageKey, type MessageMark, messageMarksPart, recordedMessages } from "./messages.ts";
export { type NetworkTransaction, type Normalised, type Stage } from "./network-transaction.ts";
export { type Overview, OVERVIEW_MAX_DAYS, programOverview } from "./overview.ts";
export { type PublisherTransactionInput, publisherSubmission, type Submission } from "./publisher.ts";
export { runQualificationsDue } from "./qualification-due.ts";
export { type ConsideredOfferView, getTransaction, getTransactionQualification, listProgramTransactions, lockRefundCandidates, lockTransactionRows, type NativeMessages, placeAt, refundedAmounts, stageViewOf, type StoredTransactionRow, toTransaction, type Transaction, type TransactionPlace, type TransactionQualification, type TransactionRow, transactionRowOf, transactionRowsPart, transactionStagesPart } from "./transactions.ts";
export { findAtNextTick, transactionRows } from "./waits.ts";
