// Offers: card-linked offers and their status, card activations and their counts, the marketplace. What the
// rest of Cardlink may use of it.
export { activateOffer, type ActivationCount, activationCountsPart, countQualified, deactivateOffer, listOfferCards, lockActivationCounts, type OfferActivation, recordQualifiedTransaction, saveActivationCounts } from "./activations.ts";
export { seedMarketplace } from "./marketplace-seed.ts";
export { adoptMarketplaceOffer, createMarketplaceOffer, listMarketplaceOffers, type MarketplaceOfferView, updateMarketplaceOffer } from "./marketplace.ts";
export { linkedToOffer, type LocationPredicate } from "./link-filter.ts";
export { linkLocation, linkProgramLocations, unlinkLocation } from "./links.ts";
export { newestMarkedOffer, newestPrivateMarketplaceOffer } from "./marked.ts";
export { qualifiableOfferRows } from "./live-offers.ts";
export { announceIfLive, announceLiveMarketplaceOffers, runMarketplaceDue } from "./marketplace-due.ts";
export { type Offer, toOffer } from "./offer-record.ts";
export { createOffer, deleteOffer, getOffer, listOffers, updateOffer } from "./offers.ts";
