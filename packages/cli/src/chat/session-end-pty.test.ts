// How a chat was left reaches the SessionEnd hooks, as in Claude Code: leaving at the prompt
// (Ctrl+D, /exit, Ctrl+C twice) is "prompt_input_exit", anything else "other" — in a local chat
// (its server ends with it) and in a chat on a server's session (told when the session ends there).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startHarnessServer } from "@harness/test-utils";
import { chatInTerminal, fakeModelForFile, leaveChat, pause } from "../test-support.ts";

const model = fakeModelForFile();

/** A home whose user settings have a SessionEnd hook writing its input to the returned file. */
function homeWithSessionEnd(prefix: string): { home: string; ended: string } {
  const home = model.dir(prefix);
  const ended = join(home, "ended.json");
  mkdirSync(join(home, ".claude"), { recursive: true });
  const hooks = { SessionEnd: [{ hooks: [{ type: "command", command: `cat > ${JSON.stringify(ended)}` }] }] };
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ hooks }));
  return { home, ended };
}

const reasonIn = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as { reason: string }).reason;

async function eventually(file: string): Promise<void> {
  for (let waited = 0; !existsSync(file) || !readFileSync(file, "utf8").trim(); waited += 50) {
    if (waited > 15_000) throw new Error(`${file} was never written`);
    await pause(50);
  }
}

test("a local chat left with Ctrl+D, /exit or Ctrl+C twice tells SessionEnd prompt_input_exit", async (t) => {
  for (const leave of ["\x04", "/exit\r", "\x03\x03"]) {
    const { home, ended } = homeWithSessionEnd("harness-end-home-");
    const project = model.dir("harness-end-project-");
    const env = { NO_COLOR: "1", HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
    const chat = chatInTerminal(t, "--local", { cwd: project, env, columns: 120 });
    await chat.sees(/Ctrl\+D leaves/);
    model.fake.push({ text: "Hello." });
    chat.type("hi\r");
    await chat.sees(/Hello\./);
    // At the prompt: the reply may show before the state says the run ended (its working row goes
    // then), and a key pressed while it runs is not a leave at the prompt.
    await chat.gone(/esc to interrupt/);
    chat.type(leave);
    assert.equal(await chat.closed, leave === "\x03\x03" ? 130 : 0);
    await eventually(ended);
    assert.equal(reasonIn(ended), "prompt_input_exit", leave);
  }
});

test("a chat on a server's session left with Ctrl+D tells SessionEnd prompt_input_exit when the session ends there", async (t) => {
  const dataDir = model.dir("harness-end-server-");
  const { home, ended } = homeWithSessionEnd("harness-end-serverhome-");
  const server = await startHarnessServer({ dataDir, env: { HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url } });
  t.after(() => server.stop());
  const env = { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  const chat = chatInTerminal(t, "--session ended", { env, columns: 120 });
  await chat.sees(/Ctrl\+D leaves/);
  model.fake.push({ text: "Hello." });
  chat.type("hi\r");
  await chat.sees(/Hello\./);
  await leaveChat(chat);
  // The session stays on the server after the chat: it ends with the server here.
  await pause(300);
  assert.ok(!existsSync(ended), "the session has not ended yet");
  await server.stop();
  await eventually(ended);
  assert.equal(reasonIn(ended), "prompt_input_exit");
  rmSync(ended);
});
