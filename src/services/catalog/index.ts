// The catalog: programs, brands, locations and their state and sync at each network, and cards. What the
// rest of Cardlink may use of it.
export { approveDueBrands, type Brand, createBrand, decideBrandConsent, decideSandboxBrandConsent, findBrand, getBrand, listBrands, seedBrands } from "./brands.ts";
export { type Card, cardsForTransactions, deleteCard, enrolCard, findCardRow, getCard, getLinkedCard, listCards, type StoredCard } from "./cards.ts";
export { type LocationWithBrand, type Place, placeOfLocation } from "./location-records.ts";
export { anyOnboardingUnanswered, applyOnboardingReply, fullIds, type ReplyOutcome, seedNetworks, sendOnboardingRequests, setNetworkMids, trySendOnboardingRequests } from "./location-sync.ts";
export { activeLocationNetworks, createLocation, deleteLocation, getLocation, listLocations, type Location, type NewLocation, seedLocations, updateLocation } from "./locations.ts";
export { findMarked } from "./marked.ts";
export { updateProgram } from "./program-update.ts";
export { type PurchaseCard, purchaseCardsSql, type PurchaseLocation, purchaseLocationsSql } from "./purchase-facts.ts";
export { createProgram, getProgram, listPrograms, type Program } from "./programs.ts";
export {
  brandIdNamed,
  locationOwner,
  type LocationOwner,
  lockBrand,
  lockProgram,
  networkMidsForUpdate,
  programOwner,
  type ProgramOwner,
  requestCard,
  requestLocation,
} from "./rows.ts";
export { brandLocationsSql, callerProgramSql, LOCATIONS_OF_PROGRAM, networkMidsSql, programNameSql } from "./sql.ts";
