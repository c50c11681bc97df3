// Transactions: the record the qualifier writes, the messages applied, return periods, the qualifier's index
// versions and a program's transaction figures. What the rest of Cardlink may use of it.
export { indexVersions, recordedWithVersions } from "./index-versions.ts";
export { messageKey, type MessageMark, messageMarksPart, recordedMessages } from "./messages.ts";
export { type NetworkTransaction, type Normalised, type Stage } from "./network-transaction.ts";
export { type Bucket, bucketOf, type MinuteFigures, transactionFigures } from "./overview.ts";
export { type PublisherTransactionInput, publisherSubmission, type Submission } from "./publisher.ts";
export { runQualificationsDue } from "./qualification-due.ts";
export { type ConsideredOfferView, getTransaction, getTransactionQualification, listProgramTransactions, refundedAmounts, type TransactionQualification } from "./read.ts";
export { type NativeMessages, stageViewOf, type StoredTransactionRow, toTransaction, type Transaction, type TransactionPlace, type TransactionRow } from "./transactions.ts";
export { lockRefundCandidates, lockTransactionRows, placeAt, transactionRowOf, transactionRowsPart, transactionStagesPart } from "./write.ts";
export { findAtNextTick, transactionRows } from "./waits.ts";
