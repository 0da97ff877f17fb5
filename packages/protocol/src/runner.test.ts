import { test } from "node:test";
import assert from "node:assert/strict";
import { RunnerEventSchema, RunnerQuerySchema } from "./runner.ts";
import { MAX_CHANGED_FILES } from "./wire.ts";

function problems(query: Record<string, unknown>): string[] {
  const parsed = RunnerQuerySchema.safeParse({ prompt: "hi", ...query });
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

test("a query's cloud credentials are taken whole, and half a pair of AWS keys or an empty one is refused, named", () => {
  assert.deepEqual(problems({ awsAccessKeyId: "AKIA1", awsSecretAccessKey: "s", awsSessionToken: "t", googleAccessToken: "ya29.x", googleCredentialsFile: "/keys/sa.json" }), []);
  assert.deepEqual(problems({ awsBearerTokenBedrock: "ABSK" }), []);
  assert.deepEqual(problems({ awsAccessKeyId: "AKIA1" }), ["awsSecretAccessKey: send awsAccessKeyId and awsSecretAccessKey together"]);
  assert.deepEqual(problems({ awsSessionToken: "t" }), ["awsSessionToken: awsSessionToken goes with awsAccessKeyId and awsSecretAccessKey"]);
  assert.deepEqual(problems({ googleAccessToken: "" }), ["googleAccessToken: must not be empty (leave the field out instead)"]);
  assert.deepEqual(problems({ googleCredentialsFile: "sa.json" }), ["googleCredentialsFile: googleCredentialsFile must be an absolute path"]);
});

test("a query's debugLabel is a user/session name: one with a space or a line break is refused, named", () => {
  assert.equal(RunnerQuerySchema.safeParse({ prompt: "hi", debugLabel: "ann/s-1.x" }).success, true);
  for (const debugLabel of ["ann s1", "ann/s1\n2026 [DEBUG] forged", "", "x".repeat(258)]) {
    const parsed = RunnerQuerySchema.safeParse({ prompt: "hi", debugLabel });
    assert.equal(parsed.success, false, debugLabel);
    assert.match(parsed.error!.issues[0]!.message, /debugLabel must be 1 to 257 letters/);
  }
});

test("a notice may carry the retry it tells of in fields; a retry without its attempt or error, or with a status that is no HTTP status, is refused, named", () => {
  const notice = (retry: unknown) => RunnerEventSchema.safeParse({ type: "notice", seq: 1, level: "warning", message: "trying again", retry });
  assert.equal(notice(undefined).success, true);
  assert.equal(notice({ attempt: 1, maxAttempts: 3, status: 529, error: "overloaded", delayMs: 1000 }).success, true);
  const refused = (retry: unknown) => notice(retry).error?.issues.map((issue) => issue.path.join("."));
  assert.deepEqual(refused({ error: "overloaded" }), ["retry.attempt"]);
  assert.deepEqual(refused({ attempt: 1 }), ["retry.error"]);
  assert.deepEqual(refused({ attempt: 1, error: "x", status: 42 }), ["retry.status"]);
});

test("a report of changed files names at most MAX_CHANGED_FILES paths, none empty; more is refused, named", () => {
  const issues = (event: Record<string, unknown>) => {
    const parsed = RunnerEventSchema.safeParse({ seq: 1, ...event });
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join("."));
  };
  assert.deepEqual(issues({ type: "files.changed", toolUseId: "t1", paths: ["a.txt", "dir/b.md"] }), []);
  assert.deepEqual(issues({ type: "files.changed", paths: [], truncated: true }), []);
  assert.deepEqual(issues({ type: "files.changed", paths: [""] }), ["paths.0"]);
  assert.deepEqual(issues({ type: "files.changed", paths: Array.from({ length: MAX_CHANGED_FILES + 1 }, (_, i) => `f${i}`) }), ["paths"]);
  assert.deepEqual(issues({ type: "files.changed", paths: ["a"], truncated: false }), ["truncated"]);
  assert.deepEqual(issues({ type: "run.completed", changedFiles: { paths: ["a"] } }), []);
  assert.deepEqual(issues({ type: "run.error", message: "x", changedFiles: { paths: "a" } }), ["changedFiles.paths"]);
});
