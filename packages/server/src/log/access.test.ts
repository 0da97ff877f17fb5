import { test } from "node:test";
import assert from "node:assert/strict";
import { logAccess, shownPath } from "./access.ts";
import type { LogDetail } from "./writer.ts";

test("a path is shown with its query's names and none of its values; a name that is not one is hidden too", () => {
  assert.equal(shownPath(new URL("http://h/sessions")), "/sessions");
  assert.equal(shownPath(new URL("http://h/sessions?")), "/sessions");
  assert.equal(shownPath(new URL("http://h/ws?userId=ann&token=s3cret-token&since=4")), "/ws?userId=***&token=***&since=***");
  assert.equal(shownPath(new URL("http://h/x?s3cret%20token&a=1")), "/x?***&a=***");
});

test("an answer the client left before it began says so, with no status", () => {
  const lines: [string, LogDetail | undefined][] = [];
  logAccess((line, detail) => lines.push([line, detail]), { method: "POST", url: new URL("http://h/sessions"), status: undefined, durationMs: 12.4, aborted: true, level: "info" });
  assert.deepEqual(lines, [
    [
      "POST /sessions unanswered in 12 ms, from an unknown address: the client went away before the answer began",
      {
        level: "info",
        msg: "the client of an HTTP request went away before its answer ended",
        method: "POST",
        path: "/sessions",
        httpStatus: undefined,
        durationMs: 12,
        bytes: undefined,
        user: undefined,
        address: undefined,
        aborted: true,
      },
    ],
  ]);
});
