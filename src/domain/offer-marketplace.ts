// Marketplace offers: what a content provider's offer must hold, what a publisher who adopts one
// gets, and when one is available to add.
import type { Approval } from "./offer-status.ts";
import { termsFromInput, type OfferInput, type OfferTerms, type Party, type Result } from "./offer.ts";
import { HOUR_MS } from "./time-units.ts";

export const CHANNELS = ["online", "in-store"] as const;
export type Channel = (typeof CHANNELS)[number];
export const SUPPLIER_TYPES = ["merchant", "affiliate"] as const;
export type SupplierType = (typeof SUPPLIER_TYPES)[number];
export type BrandDecision = "accept" | "decline";

/** Hours the simulated brand takes to answer a publisher who adopts a live offer, unless the provider says. */
export const DEFAULT_DECISION_HOURS = 48;

export interface Supplier {
  id: string;
  type: SupplierType;
  name: string;
}

/** A content provider's offer: the creation input without brandId/publisherId, plus the marketplace's own fields. */
export type MarketplaceOfferInput = Omit<OfferInput, "publisherId" | "funded" | "feeSplit" | "metadata" | "brandLogoURL"> & {
  brandName: string;
  brandLogoURL?: string | null | undefined;
  channels?: Channel[] | undefined;
  supplier: Supplier;
  brandDecision?: { decision: BrandDecision; afterHours?: number | undefined } | undefined;
};

/**
 * The terms of a marketplace offer: the offer rules with the content provider as publisher and funder.
 * Marketplace offers are of the marketplace/targeting variant, so they carry fees (default 0 and 0).
 */
export function marketplaceTerms(input: MarketplaceOfferInput): Result<OfferTerms> {
  const result = termsFromInput(
    {
      ...input,
      publisherId: input.supplier.id,
      funded: { id: input.supplier.id, type: input.supplier.type },
      fees: input.fees ?? { publisherFee: 0, serviceFee: 0 },
      brandLogoURL: input.brandLogoURL ?? null,
    },
    { accountId: input.supplier.id, live: true },
  );
  return result.ok ? { ok: true, value: result.value.terms } : result;
}

/**
 * The terms a publisher's adopted copy starts with. In the test environment the publisher funds it as
 * card-linking, as every test offer; live, the content provider does.
 */
export const adoptedTerms = (terms: OfferTerms, publisher: { accountId: string; live: boolean }): OfferTerms => ({
  ...terms,
  funded: publisher.live ? terms.funded : { id: publisher.accountId, type: "card-linking" },
  metadata: null,
});

const decided = (decision: BrandDecision): Approval => (decision === "accept" ? "accepted" : "declined");

/**
 * The brand's answer to an adoption: in the test environment at once, in live after the provider's
 * delay on the service clock (until then `pending`, and the offer stays in `requests`).
 */
export function adoptionApproval(
  decision: BrandDecision,
  afterHours: number,
  live: boolean,
  now: Date,
): { approval: Approval; due: Date | null } {
  if (!live) return { approval: decided(decision), due: null };
  return { approval: "pending", due: new Date(now.getTime() + afterHours * HOUR_MS) };
}


/** Available to a publisher: not ended, and not yet added to their account in this environment. */
export const isAvailable = (endAt: Date, addedAs: string | null, now: Date): boolean =>
  addedAs === null && now.getTime() <= endAt.getTime();

/** The origin and supplier of an adopted offer: the content provider. */
export const providerParty = (supplier: Pick<Supplier, "id" | "type">): Party => ({ id: supplier.id, type: supplier.type });
