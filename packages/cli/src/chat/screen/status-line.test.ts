// The settings' statusLine in `harness chat --local` at a real terminal (under `script`): the
// command gets the session's state as JSON on its stdin, and the first line it prints is shown at
// the bottom, below the typed line, and again after each reply.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic } from "@harness/test-utils";
import { bin } from "../../test-support.ts";
import { inTerminal } from "../../test-screen.ts";

const COLUMNS = 100;
let fake: FakeAnthropic;
let dir: string;

before(async () => {
  fake = await startFakeAnthropic();
  dir = mkdtempSync(join(tmpdir(), "harness-statusline-"));
  // Prints fields of its input (last=: the last model call's output tokens); "fail" in the project's marker file makes it exit 1.
  writeFileSync(
    join(dir, "statusline.mjs"),
    `let input = ""; process.stdin.on("data", (d) => (input += d)).on("end", () => {
  const j = JSON.parse(input);
  if (require("node:fs").existsSync(j.cwd + "/fail")) process.exit(1);
  console.log("\\x1b[32m[" + j.model.id + "]\\x1b[0m " + j.workspace.current_dir + " out=" + j.context_window.total_output_tokens + " last=" + (j.context_window.current_usage?.output_tokens ?? "none") + " session=" + j.session_id);
  console.log("second line");
});`.replace("require(\"node:fs\")", "process.getBuiltinModule(\"node:fs\")"),
  );
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A project with `settings` as its .claude/settings.local.json, and a home of its own. */
function project(name: string, settings: unknown, userSettings?: unknown): { cwd: string; home: string } {
  const cwd = join(dir, name);
  const home = join(dir, `${name}-home`);
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify(settings));
  if (userSettings) writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(userSettings));
  return { cwd, home };
}

const statusLine = () => ({ type: "command", command: `${JSON.stringify(process.execPath)} ${JSON.stringify(join(dir, "statusline.mjs"))}`, padding: 2 });

/** `harness chat --local --model claude-sonnet-4-5` in `where`, at a terminal COLUMNS wide. */
function terminalChat(t: { after(fn: () => unknown): void }, where: { cwd: string; home: string }) {
  const line = `exec bash ${JSON.stringify(bin)} chat --local --model claude-sonnet-4-5`;
  const env = { ...process.env, HOME: where.home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me", TERM: "xterm", NO_COLOR: "1" };
  const terminal = inTerminal(t, line, { cwd: where.cwd, env, columns: COLUMNS });
  // What the screen shows, not the bytes written: the status line is redrawn in place.
  return { ...terminal, sees: terminal.shows };
}

test("the status line shows the command's first line at the bottom, and again after each reply", async (t) => {
  const where = project("shown", { statusLine: statusLine() });
  fake.push({ text: "First answer", usage: { output_tokens: 111 } }, { text: "Second answer", usage: { output_tokens: 222 } });
  const chat = terminalChat(t, where);
  await chat.bottom(/^ {2}\[claude-sonnet-4-5\] \S+shown out=0 last=none session=chat-/);
  assert.match(chat.screen(), /\x1b\[32m\[claude-sonnet-4-5\]\x1b\[0m/, "its colours are kept");
  assert.doesNotMatch(chat.rows().join("\n"), /second line/, "only its first line shows");
  chat.type("hello\r");
  await chat.sees(/First answer/);
  await chat.bottom(/out=111 last=111 /);
  chat.type("again");
  await chat.sees(/^again$/m);
  assert.match(chat.rows().at(-1)!, /out=111 /, "the status line stays below the typed line");
  assert.equal(chat.rows().at(-2), "again");
  chat.type("\r");
  await chat.sees(/Second answer/);
  await chat.bottom(/out=333 last=222 /);
  const rows = chat.rows();
  assert.equal(rows.filter((row) => /out=/.test(row)).length, 1, `one status line, never in the reply:\n${rows.join("\n")}`);
  // A command that fails blanks it.
  writeFileSync(join(where.cwd, "fail"), "");
  fake.push({ text: "Third answer", usage: { output_tokens: 1 } });
  chat.type("more\r");
  await chat.sees(/Third answer/);
  await chat.gone(/out=/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("disableAllHooks turns the status line off", async (t) => {
  const where = project("off", { statusLine: statusLine() }, { disableAllHooks: true });
  fake.push({ text: "Answered" });
  const chat = terminalChat(t, where);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("hello\r");
  await chat.sees(/Answered/);
  await new Promise((resolve) => setTimeout(resolve, 700));
  assert.doesNotMatch(chat.rows().join("\n"), /out=/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a bad statusLine is said as a settings problem naming the file and the key", async (t) => {
  const where = project("bad", { statusLine: { type: "command", padding: 2 } });
  const chat = terminalChat(t, where);
  await chat.sees(/Ctrl\+D leaves/);
  await chat.sees(/settings\.local\.json \(statusLine\.command\): required/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("the command runs as a hook does: CLAUDE_PROJECT_DIR names the project, and the settings' env is set", async (t) => {
  const where = project("env", {});
  // A project's own script, named as Claude Code's documentation names hooks' scripts.
  writeFileSync(join(where.cwd, ".claude", "statusline.sh"), 'cat > /dev/null; echo "project=$CLAUDE_PROJECT_DIR team=$TEAM_NAME"\n', { mode: 0o755 });
  writeFileSync(join(where.cwd, ".claude", "settings.json"), JSON.stringify({ env: { TEAM_NAME: "platform" }, statusLine: { type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/statusline.sh' } }));
  const chat = terminalChat(t, where);
  await chat.bottom(new RegExp(`^project=${where.cwd.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} team=platform$`));
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("refreshInterval runs the command again every so many seconds, with nothing else happening", async (t) => {
  const where = project("refresh", {});
  // Counts its runs in the project.
  writeFileSync(join(where.cwd, ".claude", "count.sh"), 'cat > /dev/null; n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); echo $n > runs; echo "run $n"\n', { mode: 0o755 });
  writeFileSync(join(where.cwd, ".claude", "settings.json"), JSON.stringify({ statusLine: { type: "command", command: "bash .claude/count.sh", refreshInterval: 1 } }));
  const chat = terminalChat(t, where);
  await chat.bottom(/^run 1$/);
  await chat.bottom(/^run 3$/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});
