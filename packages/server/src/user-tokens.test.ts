import { test } from "node:test";
import assert from "node:assert/strict";
import { parseUserTokens } from "./user-tokens.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";

test("a line with its fields swapped is refused without the token in the message", () => {
  assert.throws(
    () => parseUserTokens(`${TOKEN} ann\n`, "/etc/harness/tokens", 16),
    (error: Error) => {
      assert.match(error.message, /tokens line 1: the first field is as long as a token and the second is not: give the user first, then the token/);
      assert.ok(!error.message.includes(TOKEN), error.message);
      return true;
    },
  );
});

test("a short bad user is named, to find the typo", () => {
  assert.throws(() => parseUserTokens(`ann/x ${TOKEN}\n`, "tokens", 16), /line 1: user "ann\/x" must be/);
});
