import assert from "node:assert/strict";
import { test } from "node:test";
import { errorKindOf } from "./error-kind.ts";

test("a failure's kind comes from its error type when known, else from its status", () => {
  assert.equal(errorKindOf(429, "insufficient_quota"), "billing_error", "an exhausted quota is a billing matter");
  assert.equal(errorKindOf(429, "rate_limit_exceeded"), "rate_limit");
  assert.equal(errorKindOf(401, "invalid_api_key"), "authentication_failed");
  assert.equal(errorKindOf(400, "billing_error"), "billing_error");
  assert.equal(errorKindOf(undefined, "overloaded_error"), "server_error");
  assert.equal(errorKindOf(529), "server_error");
  assert.equal(errorKindOf(403), "authentication_failed");
  assert.equal(errorKindOf(413), "invalid_request");
  assert.equal(errorKindOf(404, "something_new"), "model_not_found");
  assert.equal(errorKindOf(418), "unknown");
  assert.equal(errorKindOf(undefined), "unknown");
});
