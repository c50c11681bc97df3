// Accounts: their API keys (hashed, revocable), their sandboxes (accounts of their own with a clock), dashboard sessions, the rate limits every key spends, and
// the server's own secret. What the rest of Cardlink may use of it.
export { type Account, type AccountWithKeys, type KeyOwner, createAccount, findKey, findKeyById, findSandboxCaller, listAccounts, listKeys, revokeKey, rotateKey, updateAccount } from "./accounts.ts";
export { accountExistsSql } from "./sql.ts";
export { takeTokens } from "./rate-limits.ts";
export { serverSecret } from "./server-secrets.ts";
export { chooseDashboardSandbox, endDashboardSession, findDashboardSession, type SessionRecord, type SessionSubject, startDashboardSession } from "./sessions.ts";
export {
  advanceSandboxClock,
  createSandbox,
  DEFAULT_SANDBOX_SECONDS,
  deleteExpiredSandboxes,
  deleteSandbox,
  environmentClocks,
  getSandbox,
  listSandboxes,
  MAX_SANDBOX_SECONDS,
  type NewSandbox,
  type Sandbox,
  type SandboxWithKeys,
  type CreatedSandbox,
} from "./sandboxes.ts";
