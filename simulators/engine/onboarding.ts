// A network's answer to an onboarding request: the merchant it knows from the request on, and a reply,
// Active with the scheme's MIDs or Not found, published at once in test and due 1 to 2 weeks later in live.
import type { OnboardingReply, OnboardingRequest } from "../../src/platform/bus/messages.ts";
import { TOPICS } from "../../src/platform/bus/topics.ts";
import { addressFindable, onboardingDelayMs } from "../../src/domain/location-status.ts";
import { findMerchant, scheduleDue, setMerchantProgram } from "./store.ts";
import { Batch, Rejected, commit, environmentOf, parse, type Network } from "./batch.ts";
import { assignedMids, merchantForLocation, merchantOf, mergedMids } from "./merchants.ts";
import { derivedRandom } from "./random.ts";
import { onboardingRequests } from "./requests.ts";
import { forgotten, timeIn } from "./environments.ts";
import type { Merchant, MerchantIds } from "./types.ts";

/**
 * Answers 1 to 2 weeks later (service time): Active with the scheme's MIDs, or Not found — under the
 * onboarding-failure fault, or for an address it cannot match (no house number). Client-supplied MIDs
 * make it the shortest wait, one week (src/domain/location-status.ts onboardingDelayMs). A test
 * environment request is answered at once, with no fault: the test networks onboard everything. A
 * sandbox's request is answered on the sandbox's time; a deleted sandbox's, never.
 */
export async function onboard(net: Network, value: unknown): Promise<void> {
  const request = parse(onboardingRequests, value);
  const { key: environment, environments } = await environmentOf(net, request.environment);
  if (forgotten(environments, environment)) return;
  const place = { ...request, id: request.locationId };
  const assigned = assignedMids(net, place, true);
  const supplied = request.mids.map((m) => mergedMids(assigned, m));
  const invalid = supplied.findIndex((m) => !net.adapter.validMids(m));
  if (invalid >= 0) throw new Rejected(`mids.${invalid}: not valid ${net.scheme} MIDs`);
  const now = timeIn(net.deps.clock, environments, environment);
  const draw = derivedRandom(net.scheme, "onboarding", request.requestId)();
  // The wait counts from the request, not from when this network got to it off the bus.
  const dueAt = request.live ? new Date(Date.parse(request.requestedAt) + onboardingDelayMs(supplied.length > 0, draw)) : now;
  // From the request on, the network knows the merchant, without the ids onboarding assigns.
  const known = new Batch();
  await merchantForLocation(net, known, place, { assigned: false, environment, now }, request.mids);
  await commit(net, known);
  await setMerchantProgram(net.deps.db, net.scheme, request.locationId, request.programId);
  const failure = !request.live
    ? null
    : net.dice.roll(net.faults.onboardingFailureRate)
      ? "The network could not onboard the location (onboarding failure); a case has been opened."
      : !addressFindable(request.address)
        ? `The network found no merchant at "${request.address}": the address has no street or unit number; a case has been opened.`
        : null;
  const merchant = failure ? null : await onboardedMerchant(net, request, supplied[0] ?? assigned);
  const reply: OnboardingReply = {
    requestId: request.requestId,
    scheme: net.scheme,
    locationId: request.locationId,
    status: failure ? "NOT_FOUND" : "ACTIVE",
    reason: failure,
    mids: merchant ? [merchant.mids] : [],
    respondedAt: dueAt.toISOString(),
  };
  if (!request.live) {
    if (merchant) {
      // The onboarded merchant is written as a batch of its own.
      const onboarded = new Batch();
      onboarded.merchants.push({ scheme: net.scheme, merchant, onboarded: true, at: now, environment });
      await commit(net, onboarded);
    }
    await net.deps.bus.publish(TOPICS.onboardingReplies.name, reply.locationId, reply);
    return;
  }
  await scheduleDue(net.deps.db, net.scheme, environment, { id: `onboarding:${request.requestId}`, kind: "onboarding-reply", dueAt, payload: { reply, merchant } });
}

/** The merchant onboarding makes of the request's location, with `ids`, keeping what the network holds of its timezone and MCC. */
async function onboardedMerchant(net: Network, request: OnboardingRequest, ids: MerchantIds): Promise<Merchant> {
  const known = await findMerchant(net.deps.db, net.scheme, request.locationId);
  return merchantOf({ ...request, id: request.locationId }, ids, known?.merchant);
}
