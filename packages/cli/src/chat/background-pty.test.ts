// Ctrl+B in a chat at a real terminal, as in Claude Code: while a Bash call runs, the working row
// says so, and the key moves the command to the background; the run goes on to the model's reply,
// and /tasks lists the command, which /tasks kill stops, mid-run as between runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatInTerminal, fakeModelForFile, leaveChat } from "../test-support.ts";

const model = fakeModelForFile();

test("Ctrl+B moves the running Bash call to the background; /tasks lists it and /tasks kill stops it while the run goes on", async (t) => {
  const project = model.dir("harness-ctrlb-");
  const command = "echo watching; while [ ! -e go ]; do sleep 0.1; done; touch finished";
  const waiter = "echo waiting; while [ ! -e go2 ]; do sleep 0.1; done";
  model.fake.push({ toolUses: [{ name: "Bash", input: { command } }] }, { toolUses: [{ name: "Bash", input: { command: waiter } }] }, { text: "It watches in the background." });
  const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0", NO_COLOR: "1" };
  const chat = chatInTerminal(t, "--local --dangerously-skip-permissions", { cwd: project, env, columns: 100 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("watch for the file\r");
  await chat.shows(/esc to interrupt · ctrl\+b to run in background\)/);
  // The command has started (its first output shows).
  await chat.shows(/⎿ {2}watching/);
  chat.type("\x02");
  await chat.shows(/Command was manually backgrounded by user with ID: [0-9a-f]{6}/);
  const id = /manually backgrounded by user with ID: ([0-9a-f]{6})/.exec(chat.rows().join("\n"))![1];
  assert.equal(existsSync(join(project, "finished")), false);

  // The run goes on (the next command waits): /tasks answers at once, from the session's state.
  await chat.shows(/⎿ {2}waiting/);
  chat.type("/tasks\r");
  await chat.shows(new RegExp(`Background shells: 1 running of 1\\n+ {2,}${id}  running  +\\d+s  echo watching; while`));
  chat.type(`/tasks kill ${id}\r`);
  await chat.shows(new RegExp(`\\(stopping background shell ${id}: echo watching`));
  chat.type("/bashes\r");
  await chat.shows(new RegExp(`Background shells: 0 running of 1\\n+ {2,}${id}  killed`));
  writeFileSync(join(project, "go2"), "");
  await chat.shows(/It watches in the background\./);
  // Between runs the agent answers, as the shells stand in the runner.
  chat.type("/tasks\r");
  await chat.shows(/\/tasks kill <id> stops one[^]*Background shells: 0 running of 1[^]*\/tasks kill <id> stops one/);
  await leaveChat(chat);
});
