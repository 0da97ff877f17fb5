import { test } from "node:test";
import assert from "node:assert/strict";
import { hidingSecrets } from "./secrets.ts";

test("a log line shows no URL's credentials or query, and none of the server's tokens", () => {
  const lines: string[] = [];
  const { log } = hidingSecrets((line) => lines.push(line), ["shared-token-0123456789", "ann-token-abcdefghijkl", "short"]);
  log("runner 12 exited with code 1; its last output: FetchError: request to https://gw:pw@proxy.example.com/v1?key=k failed");
  log("echo shared-token-0123456789 and ann-token-abcdefghijkl, short words stay");
  log("Harness listening on http://127.0.0.1:7700");
  assert.deepEqual(lines, [
    "runner 12 exited with code 1; its last output: FetchError: request to https://***@proxy.example.com/v1?*** failed",
    "echo *** and ***, short words stay",
    "Harness listening on http://127.0.0.1:7700",
  ]);
});

test("a log line shows none of the secrets of the server's environment, nor a secret after a flag or in a header", () => {
  const lines: string[] = [];
  const env = { OPENAI_API_KEY: "sk-proj-0123456789", PATH: "/usr/local/bin:/usr/bin", HARNESS_TOKEN: undefined };
  const { log } = hidingSecrets((line) => lines.push(line), [], env);
  log("runner 3 exited with code 1; its last output: 401 for key sk-proj-0123456789 from /usr/local/bin/node");
  log("runner 4 exited with code 1; its last output: spawn mcp-server --api-key abc123456 -H Authorization: Bearer tok987654 ENOENT");
  assert.deepEqual(lines, [
    "runner 3 exited with code 1; its last output: 401 for key *** from /usr/local/bin/node",
    "runner 4 exited with code 1; its last output: spawn mcp-server --api-key *** -H Authorization: Bearer *** ENOENT",
  ]);
});

test("what a line's JSON form shows is hidden as its text is: the message and each field", () => {
  const seen: [string, unknown][] = [];
  const { log } = hidingSecrets((line, detail) => seen.push([line, detail]), ["shared-token-0123456789"]);
  log("refused shared-token-0123456789", { level: "warn", msg: "refused shared-token-0123456789", address: "https://u:pw@h.example/x?key=k", status: 401 });
  log("no detail shared-token-0123456789");
  assert.deepEqual(seen, [
    ["refused ***", { level: "warn", msg: "refused ***", address: "https://***@h.example/x?***", status: 401 }],
    ["no detail ***", undefined],
  ]);
});
