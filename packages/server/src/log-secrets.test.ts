import { test } from "node:test";
import assert from "node:assert/strict";
import { hidingSecrets } from "./log-secrets.ts";

test("a log line shows no URL's credentials or query, and none of the server's tokens", () => {
  const lines: string[] = [];
  const log = hidingSecrets((line) => lines.push(line), ["shared-token-0123456789", "ann-token-abcdefghijkl", "short"]);
  log("runner 12 exited with code 1; its last output: FetchError: request to https://gw:pw@proxy.example.com/v1?key=k failed");
  log("echo shared-token-0123456789 and ann-token-abcdefghijkl, short words stay");
  log("Harness listening on http://127.0.0.1:7700");
  assert.deepEqual(lines, [
    "runner 12 exited with code 1; its last output: FetchError: request to https://***@proxy.example.com/v1?*** failed",
    "echo *** and ***, short words stay",
    "Harness listening on http://127.0.0.1:7700",
  ]);
});
