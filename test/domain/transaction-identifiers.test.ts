import { describe, expect, it } from "vitest";
import { mergeIdentifiers } from "../../src/domain/transaction-identifiers.ts";

type Ids = Record<"MID" | "mastercardTransactionSequenceNumber" | "mastercardRefNumber" | "amexApprovalCode" | "visaAuthCode" | "mastercardAuthCode", string | null>;
const none: Ids = { MID: null, mastercardTransactionSequenceNumber: null, mastercardRefNumber: null, amexApprovalCode: null, visaAuthCode: null, mastercardAuthCode: null };

describe("mergeIdentifiers: a later stage's identifiers join the record's", () => {
  it("takes what the record lacks from the stage and keeps what the record has", () => {
    const auth: Ids = { ...none, MID: "123", mastercardRefNumber: "REF1", mastercardAuthCode: "A1B2C3" };
    const clearing: Ids = { ...none, MID: "999", mastercardRefNumber: "REF1", mastercardTransactionSequenceNumber: "0000123456" };
    expect(mergeIdentifiers(auth, clearing)).toEqual({ ...auth, mastercardTransactionSequenceNumber: "0000123456" });
    expect(auth.mastercardTransactionSequenceNumber).toBeNull();
  });
  it("changes nothing when the stage brings nothing new", () => {
    const record: Ids = { ...none, visaAuthCode: "123456" };
    expect(mergeIdentifiers(record, none)).toEqual(record);
  });
});
