import { test } from "node:test";
import assert from "node:assert/strict";
import { webhookUrlProblem } from "./webhook-url.ts";

test("a webhook URL is https to a public host; this machine and its network only with the switch on, and plain http only to loopback", () => {
  const cases: [url: string, off: RegExp | undefined, on: RegExp | undefined][] = [
    ["https://example.com/hooks", undefined, undefined],
    ["https://8.8.8.8/", undefined, undefined],
    ["https://[2001:4860:4860::8888]/", undefined, undefined],
    ["https://[::ffff:8.8.8.8]/", undefined, undefined],
    ["http://example.com/", /https/, /https/],
    ["ftp://example.com/", /https/, /https/],
    ["https://u:p@example.com/", /credentials/, /credentials/],
    ["https://example.com/#x", /fragment/, /fragment/],
    ["//example.com", /absolute/, /absolute/],
    ["http://127.0.0.1:8080/", /https/, undefined],
    ["http://[::1]:8080/", /https/, undefined],
    ["http://localhost:8080/", /https/, undefined],
    ["http://10.0.0.1/", /https/, /https/],
    ["https://127.0.0.2/", /ALLOW_PRIVATE/, undefined],
    ["https://[::ffff:127.0.0.1]/", /ALLOW_PRIVATE/, undefined],
    ["https://192.168.1.1/", /ALLOW_PRIVATE/, undefined],
    ["https://172.20.0.1/", /ALLOW_PRIVATE/, undefined],
    ["https://100.64.0.1/", /ALLOW_PRIVATE/, undefined],
    ["https://169.254.169.254/", /ALLOW_PRIVATE/, undefined],
    ["https://0.0.0.0/", /ALLOW_PRIVATE/, undefined],
    ["https://[fd12::1]/", /ALLOW_PRIVATE/, undefined],
    ["https://[fe80::1]/", /ALLOW_PRIVATE/, undefined],
    ["https://printer.local/", /ALLOW_PRIVATE/, undefined],
    ["https://metadata.google.internal/", /ALLOW_PRIVATE/, undefined],
    ["https://intranet/", /ALLOW_PRIVATE/, undefined],
    ["https://app.localhost/", /ALLOW_PRIVATE/, undefined],
  ];
  for (const [url, off, on] of cases) {
    for (const [allow, expected] of [[false, off], [true, on]] as const) {
      const problem = webhookUrlProblem(url, allow);
      if (expected) assert.match(problem ?? "", expected, `${url} (switch ${allow ? "on" : "off"})`);
      else assert.equal(problem, undefined, `${url} (switch ${allow ? "on" : "off"})`);
    }
  }
});
