// Accounts: their API keys (hashed, revocable), dashboard sessions, the rate limits every key spends, and
// the server's own secret. What the rest of Cardlink may use of it.
export { type Account, type AccountWithKeys, createAccount, findKey, findKeyById, listAccounts, listKeys, revokeKey, rotateKey, updateAccount } from "./accounts.ts";
export { takeTokens } from "./rate-limits.ts";
export { serverSecret } from "./server-secrets.ts";
export { endDashboardSession, findDashboardSession, type SessionSubject, startDashboardSession } from "./sessions.ts";
