// /clear starts a new conversation for the hooks: the SessionStart hooks of source "clear" run, and
// what they add (additionalContext) goes to the model with the new conversation's first prompt, as
// it does at startup. Claude Code's documented way to put context back after a /clear.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const user = (content: string) => `${JSON.stringify({ type: "user", message: { role: "user", content } })}\n`;

test("after /clear, the SessionStart hooks' context goes with the next prompt", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First answer." }, { text: "Fresh answer." }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  // Says which start it is in the context it adds.
  const hook = `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify({hookSpecificOutput:{hookEventName:"SessionStart",additionalContext:"started by "+JSON.parse(s).source}})))'`;
  writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: hook }] }] } }));
  const { code, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--input-format", "stream-json", "--output-format", "stream-json"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
    stdin: user("before") + user("/clear") + user("after"),
  }).result;
  assert.equal(code, 0, stderr);
  assert.equal(fake.requests.length, 2);
  const [first, second] = fake.requests.map((request) => JSON.stringify(request.body.messages));
  assert.match(first!, /SessionStart hook additional context: started by startup/);
  assert.doesNotMatch(second!, /before|First answer/, "the cleared conversation is gone");
  assert.match(second!, /SessionStart hook additional context: started by clear/);
  assert.doesNotMatch(second!, /started by startup/);
});
