export { applyLookupReply, createMissingTransactionRequest, getMissingTransactionRequest, listMissingTransactionRequests, sendLookups, startDueLookups } from "./requests.ts";
