// Missing transaction requests: the requests, their look-ups at the networks and the networks' answers.
// What the rest of Cardlink may use of it.
export { anyLookupInFlight, applyLookupReply, createMissingTransactionRequest, getMissingTransactionRequest, listMissingTransactionRequests, sendLookups, startDueLookups } from "./requests.ts";
