// allowedHttpHookUrls patterns: `*` matches any run of characters, `/` included, so one pattern
// covers a host's every path (`https://hooks.example.com/*`) or port (`http://localhost:*`), as
// Claude Code's settings document; every other character, `?` and `[` too, stands for itself. In
// the authority a `*` does not reach past it, so no URL names another host than the pattern meant.
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyHttpHookPolicy } from "./http-policy.ts";

function allowed(pattern: string, url: string): boolean {
  return applyHttpHookPolicy({ Stop: [{ hooks: [{ type: "http", url }] }] }, { urls: [pattern] }).left.length === 0;
}

const cases: [pattern: string, url: string, allowed: boolean][] = [
  // `*` at the end: any path below, however deep, with its query.
  ["https://hooks.example.com/*", "https://hooks.example.com/a", true],
  ["https://hooks.example.com/*", "https://hooks.example.com/a/b/c?x=1", true],
  ["https://hooks.example.com/*", "https://hooks.example.com", false],
  ["https://hooks.example.com/*", "https://hooks.example.com.evil.net/a", false],
  ["https://hooks.example.com/*", "http://hooks.example.com/a", false],
  ["https://hooks.example.com/*", "https://hooksXexample.com/a", false],
  ["http://localhost:*", "http://localhost:8080/hook", true],
  // `*` in the middle: one name or several.
  ["https://api.example.com/*/events", "https://api.example.com/v1/events", true],
  ["https://api.example.com/*/events", "https://api.example.com/v1/team/events", true],
  ["https://api.example.com/*/events", "https://api.example.com/v1/events/more", false],
  // `*` in the host.
  ["https://*.example.com/hook", "https://a.example.com/hook", true],
  ["https://*.example.com/hook", "https://a.b.example.com/hook", true],
  ["https://*.example.com/hook", "https://example.com/hook", false],
  // No `*`: that URL alone; `?` and `[` are the URL's own characters.
  ["https://hooks.example.com/in", "https://hooks.example.com/in", true],
  ["https://hooks.example.com/in", "https://hooks.example.com/in/x", false],
  ["https://hooks.example.com/in?key=*", "https://hooks.example.com/in?key=abc", true],
  ["https://hooks.example.com/in?key=*", "https://hooks.example.com/inXkey=abc", false],
  ["http://[::1]:*", "http://[::1]:9000/hook", true],
  ["http://[::1]:*", "http://1:9000/hook", false],
  // In the authority a `*` stays there: no other host behind a user part, a path or a backslash.
  ["http://localhost:*", "http://localhost:8080", true],
  ["http://localhost:*", "http://localhost:8080?x=1", true],
  ["http://localhost:*", "http://localhost:x@evil.net/hook", false],
  ["http://localhost:*", "http://localhost:80\\@evil.net/hook", false],
  ["https://*.example.com/hook", "https://evil.net/a.example.com/hook", false],
  ["https://*.example.com/*", "https://a.example.com@evil.net/x", false],
  ["https://hooks.example.com/*", "https://hooks.example.com@evil.net/x", false],
  ["https://hooks.example.com/*", "https://hooks.example.com:pw@evil.net/x", false],
  // Credentials in front of an allowed host (sent as Basic auth) leave it the host it is.
  ["https://hooks.example.com/*", "https://user:pw@hooks.example.com/a", true],
  ["https://*.example.com/hook", "https://token@a.example.com/hook", true],
  ["http://localhost:*", "http://user:pw@localhost:8080/hook", true],
  ["https://hooks.example.com/*", "https://user:pw@hooks.example.com.evil.net/a", false],
];

test("an allowedHttpHookUrls pattern's `*` matches any run of characters, slashes included, and nothing else is a wildcard", () => {
  for (const [pattern, url, expected] of cases) {
    assert.equal(allowed(pattern, url), expected, `${pattern} ${expected ? "allows" : "does not allow"} ${url}`);
  }
});

test("a hook whose URL no pattern matches is left out and named", () => {
  const { config, left } = applyHttpHookPolicy(
    { Stop: [{ hooks: [{ type: "http", url: "https://a.example.com/hook" }, { type: "http", url: "https://b.example.net/hook" }] }] },
    { urls: ["https://nowhere.example.org/*", "https://*.example.com/*"] },
  );
  assert.deepEqual(config.Stop?.[0]?.hooks, [{ type: "http", url: "https://a.example.com/hook" }]);
  assert.equal(left.length, 1);
  assert.match(left[0]!, /The Stop http hook to https:\/\/b\.example\.net\/hook is left out: allowedHttpHookUrls does not list its URL\./);
});
