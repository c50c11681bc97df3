// An offer as the qualification rule weighs it: live all of 2026 on every scheme and day, 5 off, no
// activation, targeting or return period; a test overrides what it is about.
import type { CandidateOffer } from "../../src/domain/qualification.ts";

export const candidateOffer = (over: Partial<CandidateOffer> = {}): CandidateOffer => ({
  id: "o1",
  created: "2026-01-01T00:00:00.000Z",
  startDate: "2026-01-01T00:00:00",
  endDate: "2026-12-31T23:59:59",
  schemes: ["visa", "mastercard", "amex"],
  daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
  minTransactionAmount: null,
  type: { name: "amount", value: 5, maxRewardAmount: null },
  feeSplit: 1,
  fees: null,
  activation: { enabled: false },
  targeting: null,
  returnPeriod: null,
  ...over,
});
