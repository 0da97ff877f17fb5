import assert from "node:assert/strict";
import { test } from "node:test";
import { shownURL, withShownURLs } from "./shown-url.ts";

test("a URL is shown without its user, password or query string, and otherwise as configured", () => {
  assert.equal(shownURL("https://api.anthropic.com"), "https://api.anthropic.com");
  assert.equal(shownURL("http://127.0.0.1:11434/v1"), "http://127.0.0.1:11434/v1");
  assert.equal(shownURL("https://user:p%40ss@gateway.example.com/anthropic/"), "https://***@gateway.example.com/anthropic/");
  assert.equal(shownURL("https://gateway.example.com/v1?api-key=abc&x=1"), "https://gateway.example.com/v1?***");
  assert.equal(shownURL("https://token@gateway.example.com"), "https://***@gateway.example.com");
  // One that does not parse (here its port) is cut the same way.
  assert.equal(shownURL("http://user:secret@host:port/?key=k"), "http://***@host:port/?***");
});

test("the URLs in a text that carry credentials or a query are shown without them; the rest is left as it is", () => {
  assert.equal(
    withShownURLs(`curl -s 'https://u:pw@host:9/x?t=1' -o out "http://plain.example.com/a" git://tok@github.com/r.git`),
    `curl -s 'https://***@host:9/x?***' -o out "http://plain.example.com/a" git://***@github.com/r.git`,
  );
  assert.equal(withShownURLs(JSON.stringify(`wget "https://a:b@h/p?k=v"`)), `"wget \\"https://***@h/p?***\\""`);
  assert.equal(withShownURLs("mcp-remote https://bob@mcp.example.com/sse"), "mcp-remote https://***@mcp.example.com/sse");
  assert.equal(withShownURLs("no URL here: user@host, a?b"), "no URL here: user@host, a?b");
});

test("a URL shown already (its credentials and query hidden, or an http hook's label) stays as it is", () => {
  const shown = "a hook https://hooks.example.com/services/…?… and a server https://***@host:9/x?*** failed";
  assert.equal(withShownURLs(shown), shown);
  assert.equal(withShownURLs(withShownURLs("curl https://u:pw@host/x?t=1")), "curl https://***@host/x?***");
});
