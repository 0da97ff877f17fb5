// Why a call asks, at the question: as Claude Code's prompt does, a chat shows the reason a
// PreToolUse hook gives with its "ask" (permissionDecisionReason, meant for the user) and the ask
// rule that applies; a call that asks only because nothing allows it shows no reason.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatInTerminal, fakeModelForFile, leaveChat } from "../test-support.ts";

const model = fakeModelForFile();

function localChat(t: { after(fn: () => unknown): void }) {
  const home = model.dir("harness-ask-home-");
  const project = model.dir("harness-ask-project-");
  mkdirSync(join(project, ".claude", "hooks"), { recursive: true });
  const hook = `#!/bin/bash\nif grep -q deploy; then echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"deploys need a second pair of eyes"}}'; fi\n`;
  writeFileSync(join(project, ".claude", "hooks", "ask.sh"), hook, { mode: 0o755 });
  const settings = {
    permissions: { ask: ["Bash(git push:*)"] },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/ask.sh' }] }] },
  };
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify(settings));
  const env = { NO_COLOR: "1", HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  return chatInTerminal(t, "--local", { cwd: project, env, columns: 200 });
}

test("the question says the hook's reason, or the ask rule, that made the call ask", async (t) => {
  const chat = localChat(t);
  await chat.sees(/Ctrl\+D leaves/);
  model.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo deploy" } }] }, { text: "Deployed." });
  chat.type("deploy it\r");
  await chat.shows(/\? Bash needs approval: echo deploy — y to allow, n \[reason\] to deny\n {2}deploys need a second pair of eyes$/m);
  chat.type("y\r");
  await chat.sees(/Deployed\./);
  model.fake.push({ toolUses: [{ name: "Bash", input: { command: "git push origin main" } }] }, { text: "Not pushed." });
  chat.type("push it\r");
  await chat.shows(/\? Bash needs approval: git push origin main — y to allow, n \[reason\] to deny\n {2}.*the ask rule "Bash\(git push:\*\)" from \S+settings\.json applies/);
  chat.type("n\r");
  await chat.sees(/Not pushed\./);
  model.fake.push({ toolUses: [{ name: "Bash", input: { command: "touch made.txt" } }] }, { text: "Made." });
  chat.type("make it\r");
  await chat.shows(/\? Bash needs approval: touch made\.txt — y to allow, n \[reason\] to deny(?!\n {2})$/m);
  chat.type("y\r");
  await chat.sees(/Made\./);
  assert.doesNotMatch(chat.rows().join("\n"), /touch made\.txt — .*\n {2}\S/, "nothing but the lack of an allow rule made it ask");
  await leaveChat(chat);
});
