import { test } from "node:test";
import assert from "node:assert/strict";
import { parseUserTokens } from "./user-tokens.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";

test("a line with its fields swapped is refused without the token in the message", () => {
  assert.throws(
    () => parseUserTokens(`${TOKEN} ann\n`, "/etc/harness/tokens", 16),
    (error: Error) => {
      assert.match(error.message, /tokens line 1: the token \(the second field\) has 3 characters: use at least 16 .*; if the fields are the other way round, give the user first, then the token/);
      assert.ok(!error.message.includes(TOKEN), error.message);
      return true;
    },
  );
});

test("a short bad user is named, to find the typo", () => {
  assert.throws(() => parseUserTokens(`ann/x ${TOKEN}\n`, "tokens", 16), /line 1: user "ann\/x" must be/);
});

test("a long user name with a short token is told the token is short, as well as how to mend swapped fields", () => {
  assert.throws(
    () => parseUserTokens("annabelle-smith-jones abc\n", "tokens", 16),
    (error: Error) => {
      assert.match(error.message, /line 1: the token \(the second field\) has 3 characters: use at least 16 \(e\.g\. openssl rand -hex 32\); if the fields are the other way round, give the user first, then the token/);
      assert.ok(!error.message.includes("annabelle"), "the first field may be a token: it is not echoed");
      return true;
    },
  );
});
