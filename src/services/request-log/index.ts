// The request log: every /v1 request a key made, per environment, with its answer and both bodies masked.
// What the rest of Cardlink may use of it.
export { getRequest, listRequests, pruneRequests, type RequestFilters, type RequestOrder, type RequestRecord, type RequestSource } from "./records.ts";
export { createRequestLog, type RequestEntry, type RequestLog } from "./writer.ts";
