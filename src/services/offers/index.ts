// Offers: card-linked offers and their status, card activations and their counts, the marketplace. What the
// rest of Cardlink may use of it.
export { activateOffer, type ActivationCount, activationCountsPart, countQualified, deactivateOffer, listOfferCards, lockActivationCounts, type OfferActivation, recordQualifiedTransaction, saveActivationCounts } from "./activations.ts";
export { seedMarketplace } from "./marketplace-seed.ts";
export { adoptMarketplaceOffer, createMarketplaceOffer, listMarketplaceOffers, type MarketplaceOfferView, updateMarketplaceOffer } from "./marketplace.ts";
export { announceIfLive, announceLiveMarketplaceOffers, createOffer, deleteOffer, getOffer, linkLocation, linkProgramLocations, listOffers, type Offer, qualifiableOfferRows, runMarketplaceDue, toOffer, unlinkLocation, updateOffer } from "./offers.ts";
