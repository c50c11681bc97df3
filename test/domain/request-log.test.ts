// The request log's rules over text: card numbers and secrets masked wherever they are, bodies cut to the
// bound (after masking, so a number across the bound is never half kept), error codes and resources read
// from answers, and the status and path filters.
import { describe, expect, it } from "vitest";
import {
  BODY_LIMIT,
  errorCodeOf,
  holdBody,
  logBody,
  maskBody,
  pathPatterns,
  resourceIdOf,
  statusRange,
} from "../../src/domain/request-log.ts";

describe("maskBody", () => {
  it("keeps only the last four digits of a card number field, whatever the number (a mistyped one too)", () => {
    expect(maskBody('{"number":"4444000000004008","expMonth":12}')).toBe('{"number":"************4008","expMonth":12}');
    expect(maskBody('{"number": "4444 0000 0000 4009"}')).toBe('{"number": "**** **** **** 4009"}');
    expect(maskBody('{"cardNumber":4444000000004008}')).toBe('{"cardNumber":************4008}');
    expect(maskBody('{"number":"12"}')).toBe('{"number":"12"}');
  });

  it("masks a card number anywhere by its first digit and Luhn check, and leaves other long numbers and ids alone", () => {
    expect(maskBody('{"metadata":{"note":"card 4242 4242 4242 4242 used"}}')).toBe('{"metadata":{"note":"card **** **** **** 4242 used"}}');
    expect(maskBody("number=5555555555554444&limit=2")).toBe("number=************4444&limit=2");
    // Fails Luhn, or no card network's first digit, or part of a longer number or an id: kept.
    expect(maskBody('{"ref":"4444000000004009"}')).toBe('{"ref":"4444000000004009"}');
    expect(maskBody('{"mid":"9999999999999995"}')).toBe('{"mid":"9999999999999995"}');
    expect(maskBody('{"n":"42424242424242424242"}')).toBe('{"n":"42424242424242424242"}');
    const id = "4c4f2b1e-8d4a-4b6e-9f1a-424242424242";
    expect(maskBody(`{"id":"${id}"}`)).toBe(`{"id":"${id}"}`);
    // A card number beside other digit groups is found inside the run.
    expect(maskBody("ref 12 4242 4242 4242 4242")).toBe("ref 12 **** **** **** 4242");
  });

  it("masks secret keys to their prefix and last four, and signing secrets and secret fields entirely", () => {
    const key = "sk_test_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
    expect(maskBody(`{"keys":{"test":"${key}"}}`)).toBe('{"keys":{"test":"sk_test_****Xy4z"}}');
    expect(maskBody('{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}')).toBe('{"secret":"****"}');
    expect(maskBody("signed with whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw=")).toBe("signed with whsec_****");
    expect(maskBody('{"password":"hunter2"}')).toBe('{"password":"****"}');
  });
});

describe("holdBody and logBody", () => {
  it("keep a short body whole", () => {
    expect(logBody(holdBody('{"a":1}'))).toEqual({ body: '{"a":1}', truncated: false });
  });

  it("cut a long body to the bound after masking, so a card number across the bound is never partly kept", () => {
    const pan = "4444000000004008";
    const text = `${"x".repeat(BODY_LIMIT - 9)} ${pan} ${"y".repeat(1000)}`;
    const held = holdBody(text);
    expect(held.cut).toBe(true);
    const logged = logBody(held);
    expect(logged.truncated).toBe(true);
    expect(logged.body).toHaveLength(BODY_LIMIT);
    expect(logged.body.endsWith("********")).toBe(true);
    expect(logged.body).not.toContain("44440000");
  });

  it("make text PostgreSQL stores: no U+0000, no unpaired surrogate", () => {
    expect(logBody(holdBody("a\u0000b\uD800c")).body).toBe("a\uFFFDb\uFFFDc");
  });
});

describe("errorCodeOf and resourceIdOf", () => {
  it("read the error code of an error answer only", () => {
    expect(errorCodeOf(400, '{"error":{"code":"invalid_request","message":"x","requestId":"req_1"}}')).toBe("invalid_request");
    expect(errorCodeOf(200, '{"error":{"code":"x"}}')).toBeNull();
    expect(errorCodeOf(500, "not json")).toBeNull();
  });

  it("name what a successful change made or acted on: its answer's id, else the last id in its path", () => {
    const id = "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b";
    const other = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(resourceIdOf("POST", "/v1/programs", 201, `{"id":"${id}","name":"P"}`, false)).toBe(id);
    expect(resourceIdOf("DELETE", `/v1/programs/${other}/x/${id}`, 204, undefined, false)).toBe(id);
    expect(resourceIdOf("GET", `/v1/programs/${id}`, 200, `{"id":"${id}"}`, false)).toBeNull();
    expect(resourceIdOf("POST", `/v1/programs/${id}/cards`, 400, '{"error":{}}', false)).toBeNull();
  });
});

describe("filters", () => {
  it("take a status or a class of them", () => {
    expect(statusRange("404")).toEqual([404, 404]);
    expect(statusRange("4xx")).toEqual([400, 499]);
  });

  it("match a path and what lies under it, `*` for any characters, LIKE's own characters literally", () => {
    expect(pathPatterns("/v1/cards")).toEqual(["/v1/cards", "/v1/cards/%"]);
    expect(pathPatterns("/v1/programs/*/cards")).toEqual(["/v1/programs/%/cards", "/v1/programs/%/cards/%"]);
    expect(pathPatterns("/v1/a_b%")).toEqual(["/v1/a\\_b\\%", "/v1/a\\_b\\%/%"]);
  });
});
