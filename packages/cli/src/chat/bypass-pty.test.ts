// permissions.disableBypassPermissionsMode in a chat at a terminal, as in Claude Code: bypass
// permissions is never offered. A chat started in it goes on in the default mode and says why,
// Shift+Tab's cycle leaves it out, and /mode refuses it naming the setting.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatInTerminal, fakeModelForFile, leaveChat, pause } from "../test-support.ts";

const model = fakeModelForFile();

const SHIFT_TAB = "\x1b[Z";
const BYPASS = /⏵⏵ bypass permissions on/;
/** A chat of its own on a project whose user settings are `settings`. */
function localChat(t: { after(fn: () => unknown): void }, settings: unknown, flags: string) {
  const home = model.dir("harness-bypass-home-");
  const project = model.dir("harness-bypass-project-");
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(settings));
  const env = { NO_COLOR: "1", HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  return chatInTerminal(t, `--local ${flags}`, { cwd: project, env, columns: 100 });
}

test("a chat started in bypass permissions keeps it in Shift+Tab's cycle when the settings allow it", async (t) => {
  const chat = localChat(t, {}, "--dangerously-skip-permissions");
  await chat.sees(/Ctrl\+D leaves/);
  await chat.bottom(BYPASS);
  chat.type(SHIFT_TAB);
  await chat.shows(/permission mode default from the next model call on/);
  chat.type(SHIFT_TAB);
  await chat.bottom(/accept edits on/);
  chat.type(SHIFT_TAB);
  await chat.bottom(/plan mode on/);
  chat.type(SHIFT_TAB);
  await chat.bottom(BYPASS);
  await leaveChat(chat);
});

test("with disableBypassPermissionsMode, a chat started with --dangerously-skip-permissions goes on in the default mode, Shift+Tab never reaches bypass, and /mode refuses it", async (t) => {
  const chat = localChat(t, { permissions: { disableBypassPermissionsMode: "disable" } }, "--dangerously-skip-permissions");
  await chat.sees(/Ctrl\+D leaves/);
  await chat.sees(/bypassPermissions is turned off by the settings \(permissions\.disableBypassPermissionsMode\): the chat goes on in default mode/);
  await chat.sees(/settings of session \S+: permission mode default/);
  chat.type(SHIFT_TAB);
  await chat.bottom(/accept edits on/);
  chat.type(SHIFT_TAB);
  await chat.bottom(/plan mode on/);
  chat.type(SHIFT_TAB);
  await chat.shows(/permission mode default from the next model call on|plan mode off/);
  // Back to the default mode, past no bypass.
  await chat.gone(/shift\+tab to cycle/);
  chat.type("/mode fullAuto\r");
  await chat.sees(/✗ \/mode fullAuto: bypassPermissions is turned off by the settings \(permissions\.disableBypassPermissionsMode\)/);
  chat.type("/mode bypassPermissions\r");
  await chat.sees(/✗ \/mode bypassPermissions: bypassPermissions is turned off by the settings \(permissions\.disableBypassPermissionsMode\)/);
  await pause(300);
  assert.doesNotMatch(chat.rows().join("\n"), BYPASS);
  await leaveChat(chat);
});

test("/mode bypassPermissions, Claude Code's name for the mode, turns bypass permissions on as /mode fullAuto does", async (t) => {
  const chat = localChat(t, {}, "");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/mode bypassPermissions\r");
  await chat.bottom(BYPASS);
  chat.type("/mode plan\r");
  await chat.bottom(/plan mode on/);
  chat.type("/mode bypassPermissions\r");
  await chat.bottom(BYPASS);
  assert.doesNotMatch(chat.rows().join("\n"), /✗/);
  await leaveChat(chat);
});
