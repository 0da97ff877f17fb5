// A chat at a real terminal shows what an edit changed, as Claude Code does: "Update(…)", then
// "Updated … with N additions and M removals" over the lines removed (red, `-`) and added (green, `+`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolThenText } from "@harness/test-utils";
import { chatInTerminal, fakeModelForFile, leaveChat } from "../../test-support.ts";

const model = fakeModelForFile();

/** A chat of its own, in accept-edits mode, on a project holding app.ts; `env` adds to its environment. */
function editingChat(t: { after(fn: () => unknown): void }, env: Record<string, string>) {
  const project = model.dir("harness-edit-diff-");
  const file = join(project, "app.ts");
  writeFileSync(file, ["export function f() {", "  const a = 1;", "  const b = 2;", "  return a + b;", "}", ""].join("\n"));
  const edit = { file_path: file, old_string: "  const b = 2;\n", new_string: "  const b = 3;\n  const c = 4;\n" };
  model.fake.push({ toolUses: [{ name: "Read", input: { file_path: file } }] }, ...toolThenText("Edit", edit, "Changed b."));
  const chatEnv = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0", ...env };
  const chat = chatInTerminal(t, "--local --permission-mode acceptEdits", { cwd: project, env: chatEnv, columns: 100 });
  return { chat, file };
}

test("an edit in a chat at a terminal shows its removed lines in red and its added lines in green, numbered", async (t) => {
  const { chat, file } = editingChat(t, {});
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("change b\r");
  await chat.shows(/Changed b\./);
  const rows = chat.rows();
  // The project's files are named relative to it, as Claude Code names them.
  const at = rows.findIndex((row) => row === "● Update(app.ts)");
  assert.ok(at !== -1, rows.join("\n"));
  assert.deepEqual(rows.slice(at + 1, at + 8), [
    "  ⎿  Updated app.ts with 2 additions and 1 removal",
    "     1    export function f() {",
    "     2      const a = 1;",
    "     3 -    const b = 2;",
    "     3 +    const b = 3;",
    "     4 +    const c = 4;",
    "     5      return a + b;",
  ]);
  assert.ok(chat.screen().includes("\x1b[31m3 -    const b = 2;\x1b[0m"), "the removed line is red");
  assert.ok(chat.screen().includes("\x1b[32m4 +    const c = 4;\x1b[0m"), "an added line is green");
  assert.equal(readFileSync(file, "utf8").split("\n")[3], "  const c = 4;");
  await leaveChat(chat);
});

test("with NO_COLOR the change is the same lines, marked - and + without colour", async (t) => {
  const { chat } = editingChat(t, { NO_COLOR: "1" });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("change b\r");
  await chat.shows(/Changed b\./);
  assert.match(chat.rows().join("\n"), / {5}3 - {4}const b = 2;\n {5}3 \+ {4}const b = 3;\n {5}4 \+ {4}const c = 4;/);
  assert.doesNotMatch(chat.screen(), /\x1b\[3[12]m/);
  await leaveChat(chat);
});
