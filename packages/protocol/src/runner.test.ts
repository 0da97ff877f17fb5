import { test } from "node:test";
import assert from "node:assert/strict";
import { RunnerQuerySchema } from "./runner.ts";

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
