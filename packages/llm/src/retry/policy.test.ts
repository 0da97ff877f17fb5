import assert from "node:assert/strict";
import { test } from "node:test";
import { foreignBody, MAX_RETRY_DELAY_MS, parseRetryAfter, retryDelayMs, statusFailure } from "./policy.ts";

test("backoff doubles with each retry, adds at most a quarter of jitter, and never exceeds 60 s", () => {
  for (let attempt = 1; attempt <= 4; attempt++) {
    const base = 500 * 2 ** (attempt - 1);
    for (let i = 0; i < 50; i++) {
      const delay = retryDelayMs(attempt, 500, undefined);
      assert.ok(delay >= base && delay <= base * 1.25, `retry ${attempt}: ${delay} ms`);
    }
  }
  assert.equal(retryDelayMs(20, 500, undefined), MAX_RETRY_DELAY_MS);
});

test("a server's retry-after is used as given, capped at 60 s", () => {
  assert.equal(retryDelayMs(1, 500, 2000), 2000);
  assert.equal(retryDelayMs(3, 500, 0), 0);
  assert.equal(retryDelayMs(1, 500, 3_600_000), MAX_RETRY_DELAY_MS);
});

test("retry-after is read in seconds, as an HTTP date, or from retry-after-ms", () => {
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "3" })), 3000);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "0.5" })), 500);
  assert.equal(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" })), 250);
  const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
  const fromDate = parseRetryAfter(new Headers({ "retry-after": inTenSeconds }));
  assert.ok(fromDate !== undefined && fromDate > 8000 && fromDate <= 10_000, `from a date: ${fromDate}`);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "soon" })), undefined);
  assert.equal(parseRetryAfter(new Headers()), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
});

test("which statuses are tried again, and the server's x-should-retry over them", () => {
  for (const status of [408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529]) assert.equal(statusFailure("x", status, undefined).retryable, true, String(status));
  for (const status of [400, 401, 403, 404, 413, 422, 501]) assert.equal(statusFailure("x", status, undefined).retryable, false, String(status));
  assert.equal(statusFailure("x", 500, new Headers({ "x-should-retry": "false" })).retryable, false);
  assert.equal(statusFailure("x", 409, new Headers({ "x-should-retry": "true" })).retryable, true);
  assert.equal(statusFailure("x", 400, new Headers({ "x-should-retry": "true" })).retryable, true);
});

test("a body that is not the API's error is named without the status again, an HTML page by its title", () => {
  assert.equal(foreignBody("502 <html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", 502), 'the server answered with an HTML page, "502 Bad Gateway" (a proxy or gateway in between?)');
  assert.equal(foreignBody("503 <!DOCTYPE html><p>down</p>", 503), "the server answered with an HTML page (a proxy or gateway in between?)");
  assert.equal(foreignBody("500 upstream connect error", 500), "upstream connect error");
  assert.equal(foreignBody("500 ", 500), "no message");
});
