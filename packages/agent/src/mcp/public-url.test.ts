// How a remote MCP server's URL is shown: origin and path, nothing that may be a secret.
import assert from "node:assert/strict";
import { test } from "node:test";
import { publicUrl, withPublicUrl } from "./public-url.ts";

test("a URL is shown without its credentials, query or fragment", () => {
  assert.equal(publicUrl("https://someone:pw@mcp.example.com:8443/v1/mcp?token=abc#x"), "https://mcp.example.com:8443/v1/mcp");
  assert.equal(publicUrl("http://127.0.0.1:9/mcp"), "http://127.0.0.1:9/mcp");
});

test("a URL that does not parse is named only as such, and every quote of it in a text is replaced", () => {
  assert.equal(publicUrl("not a url?token=abc"), "(an unreadable URL)");
  const url = "https://u:p@h.example/mcp?k=v";
  assert.equal(withPublicUrl(`fetch ${url} failed; retried ${url}`, url), "fetch https://h.example/mcp failed; retried https://h.example/mcp");
});
