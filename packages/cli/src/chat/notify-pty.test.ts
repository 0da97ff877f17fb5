// `harness chat` in a real terminal tells the user when the session needs them and they seem away,
// as Claude Code does: on the channel Claude Code's "preferredNotifChannel" names (a bell, iTerm2's
// OSC 9, kitty's OSC 99, the OSC 777 notify of Ghostty and others), when a run ends or starts
// waiting for an approval. Nothing when the setting says so, when the run was over before the user
// could look away (HARNESS_NOTIFY_AFTER_MS, 5 s unless a test says less), or while the terminal
// reports itself focused; focus reporting is turned off again as the chat ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@harness/test-utils";
import { chatInTerminal, chatServerForFile, heldReply, leaveChat, pause, pipedChat } from "../test-support.ts";

const server = chatServerForFile("harness-chat-notify-");

/** A user configuration directory whose `file` (settings.json or .claude.json) holds `settings`. */
function configDir(t: { after(fn: () => unknown): void }, file: string, settings: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-notify-config-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, file), JSON.stringify(settings));
  return dir;
}

function env(config: string, afterMs?: number): NodeJS.ProcessEnv {
  return { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "notify", HARNESS_BUNDLE: "0", CLAUDE_CONFIG_DIR: config, ...(afterMs !== undefined && { HARNESS_NOTIFY_AFTER_MS: String(afterMs) }) };
}

/** What the terminal was sent after `from` (its bytes so far), once the run's reply shows and
 * then, when `told` is given, once those bytes match it (the notification follows the state that
 * ends the run); without it, once a notification would have had time to come. */
async function runOnce(chat: ReturnType<typeof chatInTerminal>, prompt: string, reply: string, told?: RegExp): Promise<string> {
  const from = chat.screen().length;
  server.fake.push({ text: reply });
  chat.type(`${prompt}\r`);
  await chat.shows(new RegExp(`^${reply}$`, "m"));
  if (told) await waitFor(() => told.test(chat.screen().slice(from)), `${JSON.stringify(told.source)} after the reply`);
  else await pause(400);
  return chat.screen().slice(from);
}

const NOTIFICATIONS = /\x07|\x1b\](?:9|99|777);/;

const CHANNELS: [string, RegExp][] = [
  ["terminal_bell", /^[^\x1b]*\x07/],
  ["iterm2", /\x1b\]9;Harness: the run finished\x07/],
  ["iterm2_with_bell", /\x1b\]9;Harness: the run finished\x07\x07/],
  ["kitty", /\x1b\]99;i=([\w-]+):d=0;Harness\x1b\\\x1b\]99;i=\1:p=body;the run finished\x1b\\/],
  ["ghostty", /\x1b\]777;notify;Harness;the run finished\x07/],
];

for (const [channel, bytes] of CHANNELS) {
  test(`with preferredNotifChannel "${channel}", a run's end reaches the terminal as its notification`, async (t) => {
    const chat = chatInTerminal(t, `--session notify-${channel}`, { env: env(configDir(t, ".claude.json", { preferredNotifChannel: channel }), 0), columns: 80 });
    await chat.sees(/Ctrl\+D leaves/);
    const sent = await runOnce(chat, "hello", "Hi there.", channel === "terminal_bell" ? /\x07/ : bytes);
    if (channel === "terminal_bell") assert.equal(sent.match(/\x07/g)?.length, 1, JSON.stringify(sent));
    else assert.match(sent, bytes, JSON.stringify(sent));
    // Nothing of it shows on the screen.
    assert.doesNotMatch(chat.rows().join("\n"), /Harness|99;|777;/);
    await leaveChat(chat);
  });
}

test("the user settings' preferredNotifChannel counts too, and a call waiting for approval is said with its tool", async (t) => {
  const chat = chatInTerminal(t, "--session notify-approval", { env: env(configDir(t, "settings.json", { preferredNotifChannel: "iterm2" }), 0), columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: "touch notify-made.txt" } }] }, { text: "Not run." });
  const from = chat.screen().length;
  chat.type("run it\r");
  await chat.shows(/Bash needs approval/);
  await chat.sees(/\x1b\]9;Harness: the run needs your approval for Bash\x07/);
  assert.doesNotMatch(chat.screen().slice(from), /the run finished/);
  chat.type("n\r");
  await chat.shows(/^Not run\.$/m);
  await leaveChat(chat);
});

test("notifications_disabled, and the default channel at a terminal that has none of its own, send nothing", async (t) => {
  for (const [session, config] of [
    ["notify-off", configDir(t, ".claude.json", { preferredNotifChannel: "notifications_disabled" })],
    ["notify-auto", configDir(t, ".claude.json", {})],
  ]) {
    const chat = chatInTerminal(t, `--session ${session}`, { env: { ...env(config, 0), TERM_PROGRAM: "" }, columns: 80 });
    await chat.sees(/Ctrl\+D leaves/);
    const sent = await runOnce(chat, "hello", "Quietly.");
    assert.doesNotMatch(sent, NOTIFICATIONS, JSON.stringify(sent));
    await leaveChat(chat);
  }
});

test("a run over sooner than HARNESS_NOTIFY_AFTER_MS sends nothing; one that takes longer does", async (t) => {
  const chat = chatInTerminal(t, "--session notify-short", { env: env(configDir(t, ".claude.json", { preferredNotifChannel: "ghostty" }), 1_500), columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  const short = await runOnce(chat, "quick", "Done fast.");
  assert.doesNotMatch(short, NOTIFICATIONS, JSON.stringify(short));
  const held = heldReply("Done slowly.");
  t.after(() => held.release());
  server.fake.push(held.reply);
  const from = chat.screen().length;
  chat.type("slow\r");
  await pause(2_000);
  held.release();
  await chat.shows(/^Done slowly\.$/m);
  await chat.sees(/\x1b\]777;notify;Harness;the run finished\x07/);
  assert.match(chat.screen().slice(from), /777;notify/);
  await leaveChat(chat);
});

test("the chat asks the terminal to report its focus, sends nothing while it is focused, and stops the reports as it ends", async (t) => {
  const chat = chatInTerminal(t, "--session notify-focus", { env: env(configDir(t, ".claude.json", { preferredNotifChannel: "terminal_bell" }), 0), columns: 80 });
  await chat.sees(/\x1b\[\?1004h/);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("\x1b[I");
  const focused = await runOnce(chat, "while I look", "Seen.");
  assert.doesNotMatch(focused, /\x07/, JSON.stringify(focused));
  // The reports are no keys: nothing of them is typed.
  chat.type("\x1b[O");
  const away = await runOnce(chat, "while I am away", "Unseen.", /\x07/);
  assert.match(away, /\x07/, JSON.stringify(away));
  assert.doesNotMatch(chat.rows().join("\n"), /\[I|\[O/);
  // Nor do they end a search of the prompts typed (Ctrl+R), as a key would.
  chat.type("\x12whi");
  await chat.bottom(/reverse-i-search.*whi/);
  chat.type("\x1b[I");
  await pause(200);
  assert.match(chat.rows().at(-1) ?? "", /reverse-i-search.*whi.*: while I am away$/);
  chat.type("\x07\x15");
  await leaveChat(chat);
  assert.match(chat.screen(), /\x1b\[\?1004l/);
});

test("a chat whose output is not a terminal sends no notification and asks for no focus reports", async (t) => {
  server.fake.push({ text: "Piped." });
  const config = configDir(t, ".claude.json", { preferredNotifChannel: "terminal_bell" });
  const { code, stdout, stderr } = await pipedChat(server.url, ["--session", "notify-piped"], "hello\n", { HARNESS_USER: "notify", CLAUDE_CONFIG_DIR: config, HARNESS_NOTIFY_AFTER_MS: "0" });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /Piped\./);
  assert.doesNotMatch(stdout + stderr, /\x07|\x1b\[\?1004/);
});

test("a preferredNotifChannel that is none of Claude Code's is said, naming the file, and the chat goes on", async (t) => {
  const config = configDir(t, ".claude.json", { preferredNotifChannel: "growl" });
  const chat = chatInTerminal(t, "--session notify-bad", { env: env(config, 0), columns: 200 });
  await chat.shows(/✗ .*\.claude\.json: "preferredNotifChannel" is "growl": it is one of auto, terminal_bell, iterm2, iterm2_with_bell, kitty, ghostty, notifications_disabled/);
  await chat.sees(/Ctrl\+D leaves/);
  await leaveChat(chat);
});

test("a call that starts waiting while the user is at the keys is told once they have been quiet long enough, and not if they answer first", async (t) => {
  const chat = chatInTerminal(t, "--session notify-later", { env: env(configDir(t, ".claude.json", { preferredNotifChannel: "iterm2" }), 1_500), columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  const told = /\x1b\]9;Harness: the run needs your approval for Bash\x07/g;
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: "touch notify-later.txt" } }] }, { text: "Left alone." });
  chat.type("run it\r");
  await chat.shows(/Bash needs approval/);
  assert.doesNotMatch(chat.screen(), told, "told at once, while the user was typing");
  await chat.sees(told);
  chat.type("n\r");
  await chat.shows(/^Left alone\.$/m);
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: "touch notify-later.txt" } }] }, { text: "Left alone again." });
  chat.type("run it again\r");
  await chat.shows(/touch notify-later\.txt[^\n]*\n(?:.*\n)*.*Bash needs approval(?:.*\n)*.*Bash needs approval/);
  chat.type("n\r");
  await chat.shows(/^Left alone again\.$/m);
  await pause(2_000);
  assert.equal(chat.screen().match(told)?.length, 1, "the call answered at once was told");
  await leaveChat(chat);
});

test("a run cancelled from another client is told; one cancelled here (Esc) is not", async (t) => {
  const chat = chatInTerminal(t, "--session notify-cancel", { env: env(configDir(t, ".claude.json", { preferredNotifChannel: "ghostty" }), 0), columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  const cancelled = /\x1b\]777;notify;Harness;the run was cancelled\x07/g;
  for (const [prompt, cancel] of [["stop it there", "here"], ["stop it elsewhere", "elsewhere"]] as const) {
    const held = heldReply("Too late.");
    t.after(() => held.release());
    server.fake.push(held.reply);
    chat.type(`${prompt}\r`);
    await chat.sees(/esc to interrupt/);
    if (cancel === "here") chat.type("\x1b");
    else {
      const other = await pipedChat(server.url, ["--session", "notify-cancel"], "/cancel\n", { HARNESS_USER: "notify" });
      assert.equal(other.code, 0, other.stderr);
    }
    await chat.shows(new RegExp(`${prompt}[^]*cancelled`));
    // One cancelled elsewhere is told once the chat has the state that ends the run.
    if (cancel === "elsewhere") await chat.sees(new RegExp(cancelled.source));
    await pause(400);
    held.release();
    assert.equal(chat.screen().match(cancelled)?.length ?? 0, cancel === "here" ? 0 : 1, JSON.stringify(chat.screen().slice(-400)));
  }
  await leaveChat(chat);
});

test("while Ctrl+G's editor has the terminal, the focus reports are off, and on again after it", async (t) => {
  const config = configDir(t, ".claude.json", { preferredNotifChannel: "terminal_bell" });
  const editor = join(config, "editor.sh");
  writeFileSync(editor, `#!/bin/sh\nprintf 'EDITOR-RAN\\n'\nprintf 'edited' > "$1"\n`, { mode: 0o755 });
  const chat = chatInTerminal(t, "--session notify-editor", { env: { ...env(config, 0), VISUAL: editor }, columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("draft\x07");
  await chat.bottom(/^edited$/);
  // The line is drawn back just before the reports are asked for again: both may not have come yet.
  await chat.sees(/EDITOR-RAN[^]*\x1b\[\?1004h/);
  const screen = chat.screen();
  const ran = screen.indexOf("EDITOR-RAN");
  assert.ok(ran > 0, screen);
  assert.ok(screen.lastIndexOf("\x1b[?1004l", ran) > screen.lastIndexOf("\x1b[?1004h", ran), JSON.stringify(screen));
  assert.ok(screen.indexOf("\x1b[?1004h", ran) > ran, JSON.stringify(screen));
  chat.type("\x15");
  await leaveChat(chat);
});

test("a call that starts waiting while the terminal is focused is told once the focus goes out, if it still waits", async (t) => {
  const chat = chatInTerminal(t, "--session notify-focus-wait", { env: env(configDir(t, ".claude.json", { preferredNotifChannel: "iterm2" }), 0), columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("\x1b[I");
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: "touch notify-focus.txt" } }] }, { text: "Left as it was." });
  chat.type("run it\r");
  await chat.shows(/Bash needs approval/);
  await pause(800);
  const told = /\x1b\]9;Harness: the run needs your approval for Bash\x07/;
  assert.doesNotMatch(chat.screen(), told, "told while focused");
  chat.type("\x1b[O");
  await chat.sees(told);
  chat.type("n\r");
  await chat.shows(/^Left as it was\.$/m);
  await leaveChat(chat);
});
