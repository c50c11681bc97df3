"""schemathesis hooks for scripts/schemathesis (loaded with SCHEMATHESIS_HOOKS=schemathesis_hooks).

`before_call` gives each request that sends a valid Idempotency-Key a fresh one (see there).

A JSON Schema cannot state a rule that compares one field with another (endDate after startDate) or with
stored state (an opaque cursor, a brand that exists, a test-only operation under a live key). The OpenAPI
document states those rules in words, on the operation or the field; a schema-valid request that breaks
one gets 400 naming the field and the rule.

`filter_failure` accepts exactly those answers and nothing else: a `positive_data_acceptance` failure
(a schema-valid request refused) is dropped only when its status is the documented one and every rule
the error message names ("field: rule; field: rule") is one listed below for that operation. Any other
refusal, any 5xx and any response that breaks the document still fails the run. The summary counts the
accepted ones as documented-rejections.
"""
import json
import re
import uuid

import schemathesis

ANY_LIST = r"GET /(v1|admin)/.*"

# Offer inputs (POST /v1/offers, PATCH /v1/offers/{offerId}, the /admin/marketplace-offers create and
# update): the rules between fields, stated in those operations' 400 (OFFER_FIELD_RULES in
# src/api/routes/offers/schemas.ts).
OFFER_RULES = [
    r"endDate: must be after startDate",
    r"maxTransactionAmount: must not be below minTransactionAmount",
    r"type\.maxRewardAmount: only for discount offers",
    r"type\.value: a discount is a percentage, at most 100",
    r"(type\.value|type\.maxRewardAmount|minTransactionAmount|maxTransactionAmount|feeSplit|fees\.publisherFee|fees\.serviceFee): "
    r"at most \d+ decimal places in [A-Z]{3}",
    r"(feeSplit|fees\.publisherFee|fees\.serviceFee): a percentage on discount offers, at most 100",
    r"activation\.qualifiedTransactionsLimit: only with activation\.enabled true",
    r"targeting\.(from|to): required for (lapsed|existing) targeting",
    r"targeting\.from: must be less than targeting\.to",
    r"fees: only in the targeting variant; this offer uses feeSplit",
    r"targeting: only in the targeting variant \(offers created with fees, targeting or transactionSource oaas\)",
    r"feeSplit: not in the targeting variant; use fees \{publisherFee, serviceFee\}",
    r"countryCode: no currency is known for [A-Z]{3}",
    r"funded\.id: required when funded\.type is [\w-]+",
]

# Changes to an existing offer: against its stored state and the service clock (OfferUpdate's descriptions).
OFFER_UPDATE_RULES = OFFER_RULES + [
    r"endDate: must be later than the current date",
    r"endDate: an extension is at most \d+ months at a time; the latest now is [0-9T:-]+",
]

# A test location whose MIDs on the purchase's scheme the client removed after onboarding (PATCH mids: []).
LOCATION_WITHOUT_MIDS = r"locationId: the location has no \w+ MIDs \(they were removed after onboarding\); give it some with PATCH .*"

# (operation label regex, status, rule regexes). Each rule is stated in the operation's 400 response
# ("Beyond the schema, also 400: …", invalidWhen in src/api/schemas.ts) or where the comment says.
DOCUMENTED = [
    # The `start` parameter: "cursors are opaque, and a value that is not one of them is 400".
    (ANY_LIST, 400, [r"start: not a cursor from the `last` field of an earlier response\.?"]),
    # Test-environment operations (their descriptions): a live key gets 400.
    (r"POST /v1/transactions/test", 400, [
        r"Test transactions need a test key; live transactions come from the networks\.",
        r"locationId: the location is not in the card's program",
        LOCATION_WITHOUT_MIDS,
        # TestTransaction.amount: whole cents (its description; purchaseAmount in src/domain/field-rules.ts).
        r"amount: must have at most 2 decimal places",
        # An authorisation's options with stage clearing (its 400).
        r"(autoClear|authExpiryDays): applies to an authorisation: leave it out with stage clearing",
    ]),
    (r"POST /v1/trigger(/fixtures)?", 400, [r"trigger: works in the test environment; use a test key \(sk_test_…\)\."]),
    # Trigger's overrides against the event and the fixtures they name (its 400: invalidWhen in routes/trigger/fire.ts).
    (r"POST /v1/trigger", 400, [
        r"\w+: does not apply to [\w.-]+",
        r"behaviour: [\w-]+ is a clearing's: it applies to transaction\.clearing and transaction\.clearing\.qualified",
        r"scheme: the card \S+ is a \w+ card",
        r"(cardId|locationId): the (card|location) is in program \S+, not \S+",
        LOCATION_WITHOUT_MIDS,
        r"currency: a purchase at (a location in [A-Z]{3} is in \S+|the fixtures location \(GBR\) is in GBP)",
        r"amount: (the test network fails requests of .*|[\d.]+ is a failing test amount; use missing-transaction-request\.failed)",
        r"amount: must have at most 2 decimal places",
        r"datetime: must be a real local date-time .*",
    ]),
    # HookCreate.secret: its description states the Standard Webhooks form, which a length alone does not.
    (r"POST /v1/programs/\{programId\}/hooks", 400, [
        r"secret: must be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 random bytes",
    ]),
    # CardCreate.number and expYear: test keys take only test numbers, live keys refuse them; Luhn; not expired.
    (r"POST /v1/programs/\{programId\}/cards", 400, [
        r"number: .*(test|Luhn|Visa|Mastercard|Amex|scheme).*",
        r"(expYear|expMonth): .*(past|expired).*",
    ]),
    (r"POST /v1/offers", 400, OFFER_RULES + [
        r"brandId: no brand with this id for this account and environment",
        r"publisherId: must be your account id",
    ]),
    (r"PATCH /v1/offers/\{offerId\}", 400, OFFER_UPDATE_RULES),
    (r"PATCH /admin/marketplace-offers/\{offerId\}", 400, OFFER_UPDATE_RULES),
    (r"POST /admin/marketplace-offers", 400, OFFER_RULES),
    (r"POST /v1/programs/\{programId\}/locations", 400, [
        r"brandId: no brand with this id for this account and environment",
        r"brandId: the brand's consent is .+; locations need a brand with approved consent",
        r"timezone: must be an IANA time zone, such as Europe/London",
        r"status: syncing works only for live programs with a live key",
    ]),
    (r"PATCH /v1/locations/\{locationId\}", 400, [r"timezone: must be an IANA time zone, such as Europe/London"]),
    (r"GET /v1/programs/\{programId\}/mid-insights", 400, [
        r"lastSeenTransactionDateFrom: must not be after lastSeenTransactionDateTo",
    ]),
    (r"POST /v1/programs/\{programId\}/mid-insights/exports", 400, [
        r"filters\.lastSeenTransactionDateFrom: must not be after filters\.lastSeenTransactionDateTo",
        r"filters\.lastSeenTransactionDateFrom: must not be after lastSeenTransactionDateTo",
        r"recipients: required: the account has no e-mail address to send the export to",
        r"recipients: must not repeat an address",
    ]),
    # PATCH /v1/programs/{programId} `status`: "Live programs and live keys only (a test key gets 400)".
    (r"PATCH /v1/programs/\{programId\}", 400, [r"status: syncing works only for live programs with a live key\."]),
    # Operations on a stored record whose kind decides (their descriptions).
    (r"POST /v1/offers/\{offerId\}/transactions", 400, [
        r"offerId: transactions can be submitted only for offers with transactionSource oaas; others receive network "
        r"transactions at their locations",
    ]),
    (r"POST /v1/transactions/\{transactionId\}/(increment|clear|void|expire|refund)", 400, [
        r"transactionId: only purchases made with POST /transactions/test can be incremented, cleared, voided, expired or refunded here",
        r"amount: must have at most 2 decimal places",
    ]),
    (r"POST /v1/cards/\{cardId\}/missing-transaction-requests", 400, [
        r"locationId: the location belongs to another program than the card's; use a location of the card's program",
        r"transactionDate: must be within the last \d+ days: (visa|mastercard|amex) searches \d+ days back \(the earliest date today is [0-9-]+\)",
        r"transactionDate: must not be in the future.*",
        r"amount: must have at most \d+ decimal places in [A-Z]{3}",
    ]),
    # The request log's filters against each other and against the log (the operation's 400).
    (r"GET /v1/requests", 400, [
        r"until: must be after since",
        r"after: no request req_[A-Za-z0-9]+ in this environment's log \(.*\)",
        r"wait: needs after: .*",
    ]),
    (r"POST /admin/clock/advance", 400, [r"body: give days, hours, minutes or seconds greater than 0"]),
    (r"POST /admin/programs/\{programId\}/mid-insights/seed", 400, [
        r"programId: MID insights exist for live programs only; this is a test program\.",
    ]),
    (r"POST /admin/simulators/traffic/start", 400, [
        r"notOnboardedLocations: unknownMerchants \+ notOnboardedLocations must be at most 1",
        r"expiries: voids \+ refunds \+ partialClearings \+ multipleClearings \+ clearingsWithoutAuth \+ tips \+ expiries must be at most 1",
        r"targetingTags: the shares must add up to at most 1",
    ]),
]

_COMPILED = [(re.compile(op), status, [re.compile(rule) for rule in rules]) for op, status, rules in DOCUMENTED]


def _message(response):
    try:
        return json.loads(response.content)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return None


def documented_rejection(label, status, message):
    """True when every rule `message` names is a documented one for this operation and status."""
    if message is None:
        return False
    rules = [r for op, st, r in _COMPILED if st == status and op.fullmatch(label)]
    if not rules:
        return False
    allowed = [rule for group in rules for rule in group]
    # Rules are joined by "; " before the next "field: "; a rule's own text may contain "; ".
    parts = re.split(r"; (?=[\w.\[\]-]+: )", message)
    return all(any(rule.fullmatch(part) for rule in allowed) for part in parts)


IDEMPOTENCY_KEY = re.compile(r"[!-~]{1,255}")


@schemathesis.hook
def before_call(context, case, kwargs):
    """A fresh Idempotency-Key for every request that sends a valid one.

    schemathesis draws the header from its example, so most POSTs would share one key and get 422
    (the key already used with a different request): they would never reach the route. A key that
    breaks the documented pattern is kept, so those negative cases still check the 400.
    """
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return  # left as drawn: a changed header would turn the case positive and undo what it tests
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str) and IDEMPOTENCY_KEY.fullmatch(headers[name]):
            headers[name] = str(uuid.uuid4())


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if getattr(failure, "code", None) != "ST202":  # RejectedPositiveData: a schema-valid request refused
        return True
    label = f"{case.method.upper()} {case.operation.path}"
    return not documented_rejection(label, response.status_code, _message(response))
