// `harness` alone, as `claude` alone: at a terminal it is a chat on the project; anywhere else
// (piped, in a script) it prints the help, since nobody could type into a chat there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { bin, fakeModelForFile } from "../test-support.ts";
import { inTerminal } from "../test-screen.ts";

const model = fakeModelForFile();

test("harness alone at a terminal opens a chat on the project, which answers a prompt", async (t) => {
  const project = model.dir("harness-bare-project-");
  const env = { ...process.env, TERM: "xterm", NO_COLOR: "1", HOME: model.dir("harness-bare-home-"), ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)}`, { cwd: project, env, columns: 100 });
  await chat.sees(/Ctrl\+D leaves/);
  model.fake.push({ text: "Hello from the chat." });
  chat.type("hi\r");
  await chat.sees(/Hello from the chat\./);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("harness alone at a terminal without a key says so as the chat opens, before a prompt is typed in vain", async (t) => {
  const project = model.dir("harness-bare-project-");
  const env = { ...process.env, TERM: "xterm", NO_COLOR: "1", HOME: model.dir("harness-bare-home-"), ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)}`, { cwd: project, env, columns: 100 });
  await chat.sees(/Ctrl\+D leaves/);
  assert.match(chat.rows().join("\n"), /ANTHROPIC_API_KEY is not set; export your Anthropic API key \(or ANTHROPIC_AUTH_TOKEN\)/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("harness alone at a terminal with a key, or with a model that needs none, says nothing of keys", async (t) => {
  const project = model.dir("harness-bare-project-");
  const base = { ...process.env, TERM: "xterm", NO_COLOR: "1", HOME: model.dir("harness-bare-home-"), ANTHROPIC_AUTH_TOKEN: "", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  for (const [env, args] of [[{ ...base, ANTHROPIC_API_KEY: "test-key" }, ""], [{ ...base, ANTHROPIC_API_KEY: "" }, " --model ollama/llama3"]] as const) {
    const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)}${args}`, { cwd: project, env, columns: 100 });
    await chat.sees(/Ctrl\+D leaves/);
    chat.type("\x04");
    assert.equal(await chat.closed, 0);
    assert.doesNotMatch(chat.rows().join("\n"), /ANTHROPIC_API_KEY/);
  }
});

test("harness alone with its input piped prints the help and succeeds", () => {
  const run = spawnSync("bash", [bin], { input: "", encoding: "utf8", env: { ...process.env, HARNESS_BUNDLE: "0" } });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^harness — an open, self-hostable agent harness/);
  assert.match(run.stdout, /harness alone at a terminal/);
});
