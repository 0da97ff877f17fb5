import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HarnessState } from "@harness/protocol";
import { notificationBytes, notifyAfterMs, readNotifChannel, sendingChannel, startNotifier } from "./notify.ts";

test("auto picks the terminal's own channel by TERM_PROGRAM, and none at a terminal it does not know", () => {
  assert.equal(sendingChannel("auto", { TERM_PROGRAM: "iTerm.app" }), "iterm2");
  assert.equal(sendingChannel("auto", { TERM_PROGRAM: "ghostty" }), "ghostty");
  assert.equal(sendingChannel("auto", { TERM: "xterm-kitty" }), "kitty");
  assert.equal(sendingChannel("auto", { TERM_PROGRAM: "Apple_Terminal" }), "terminal_bell");
  assert.equal(sendingChannel("auto", { TERM: "xterm" }), undefined);
  assert.equal(sendingChannel("notifications_disabled", { TERM_PROGRAM: "iTerm.app" }), undefined);
  assert.equal(sendingChannel("kitty", { TERM_PROGRAM: "iTerm.app" }), "kitty");
});

test("a message cannot end its sequence early: control characters go; under tmux an OSC goes through its passthrough, a bell as it is", () => {
  assert.equal(notificationBytes("iterm2", "the run needs\x07 your\x1b] approval"), "\x1b]9;Harness: the run needs  your ] approval\x07");
  assert.equal(notificationBytes("ghostty", "a;b"), "\x1b]777;notify;Harness;a,b\x07");
  assert.equal(notificationBytes("iterm2", "done", { TMUX: "/tmp/tmux-0/default,1,0" }), "\x1bPtmux;\x1b\x1b]9;Harness: done\x07\x1b\\");
  assert.equal(notificationBytes("terminal_bell", "done", { TMUX: "x" }), "\x07");
});

/** The DCS strings of `bytes`, which must be nothing but `ESC P … ESC \` strings. */
function dcsStrings(bytes: string): string[] {
  assert.match(bytes, /^(\x1bP[^]*?\x1b\\)+$/);
  return [...bytes.matchAll(/\x1bP([^]*?)\x1b\\/g)].map((m) => m[1]);
}

test("under GNU screen an OSC goes through its passthrough, ended by a bell (an ESC \\ would end screen's string), and split into strings screen takes whole", () => {
  const screen = { STY: "4242.pts-0.host" };
  assert.equal(notificationBytes("iterm2", "done", screen), "\x1bP\x1b]9;Harness: done\x07\x1b\\");
  assert.equal(notificationBytes("iterm2_with_bell", "done", screen), "\x1bP\x1b]9;Harness: done\x07\x1b\\\x07");
  assert.equal(notificationBytes("terminal_bell", "done", screen), "\x07");
  const kitty = dcsStrings(notificationBytes("kitty", "done", screen));
  assert.equal(kitty.length, 2);
  assert.match(kitty[0], /^\x1b\]99;i=harness-\d+-\d+:d=0;Harness\x07$/);
  assert.match(kitty[1], /^\x1b\]99;i=harness-\d+-\d+:p=body;done\x07$/);
  // Under tmux as well, tmux is the nearer: its passthrough, as Claude Code does.
  assert.match(notificationBytes("iterm2", "done", { ...screen, TMUX: "x" }), /^\x1bPtmux;/);

  // Screen keeps at most 767 bytes of a string: a longer sequence goes as several, cut between
  // characters, which together are the sequence as it is sent without screen.
  const long = `the run needs your approval for ${"mcp__tool_".repeat(100)} 😀${"é😀".repeat(300)}`;
  const parts = dcsStrings(notificationBytes("ghostty", long, screen));
  assert.ok(parts.length > 2, `${parts.length} strings`);
  for (const part of parts) {
    assert.ok(Buffer.byteLength(part) <= 767, `${Buffer.byteLength(part)} bytes`);
    assert.equal(Buffer.from(part).toString(), part, "a string cut inside a character");
  }
  assert.equal(parts.join(""), notificationBytes("ghostty", long));
});

test("the user settings' preferredNotifChannel wins over .claude.json's; none is auto", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-notif-channel-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { CLAUDE_CONFIG_DIR: dir };
  assert.deepEqual(readNotifChannel("/nowhere", env), { channel: "auto" });
  writeFileSync(join(dir, ".claude.json"), JSON.stringify({ preferredNotifChannel: "kitty" }));
  assert.deepEqual(readNotifChannel("/nowhere", env), { channel: "kitty" });
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ preferredNotifChannel: "terminal_bell" }));
  assert.deepEqual(readNotifChannel("/nowhere", env), { channel: "terminal_bell" });
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ preferredNotifChannel: 3 }));
  const bad = readNotifChannel("/nowhere", env);
  assert.equal(bad.channel, "auto");
  assert.match(bad.problem ?? "", /settings\.json: "preferredNotifChannel" is 3: it is one of auto, /);
  // A file that is no JSON is the settings loader's to report.
  writeFileSync(join(dir, "settings.json"), "{ not json");
  assert.deepEqual(readNotifChannel("/nowhere", env), { channel: "kitty" });
});

test("HARNESS_NOTIFY_AFTER_MS takes whole milliseconds; anything else is said and the default kept", () => {
  assert.deepEqual(notifyAfterMs({}), { ms: 5_000 });
  assert.deepEqual(notifyAfterMs({ HARNESS_NOTIFY_AFTER_MS: "0" }), { ms: 0 });
  const bad = notifyAfterMs({ HARNESS_NOTIFY_AFTER_MS: "2s" });
  assert.equal(bad.ms, 5_000);
  assert.match(bad.problem ?? "", /HARNESS_NOTIFY_AFTER_MS must be a whole number of milliseconds, got "2s"/);
});

const state = (status: HarnessState["status"], extra: Partial<HarnessState> = {}): HarnessState => ({ status, messages: [], ...extra });

test("a run cancelled from this chat, and the waits already there when the chat joined, are not told", () => {
  const sent: string[] = [];
  const notifier = startNotifier({ channel: "iterm2", afterMs: 0, env: {}, write: (bytes) => sent.push(bytes), quietMs: () => 10, focused: () => undefined });
  notifier.update(state("awaiting-approval", { pendingApprovals: [{ toolCallId: "a", toolName: "Bash", description: "" }] }));
  assert.deepEqual(sent, []);
  notifier.update(state("running"));
  notifier.cancelledHere();
  notifier.update(state("idle", { messages: [{ id: "m", role: "assistant", content: "", status: "cancelled" }] }));
  assert.deepEqual(sent, []);
  notifier.update(state("running"));
  notifier.update(state("error", { error: "boom" }));
  notifier.update(state("running"));
  notifier.update(state("awaiting-approval", { pendingApprovals: [{ toolCallId: "b", toolName: "ExitPlanMode", description: "" }] }));
  notifier.close();
  assert.deepEqual(sent, ["\x1b]9;Harness: the run failed\x07", "\x1b]9;Harness: the plan waits for your decision\x07"]);
});

test("a wait begun while the terminal is focused is told within a second of the focus going out, the user long quiet", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sent: string[] = [];
  let focused = true;
  const notifier = startNotifier({ channel: "iterm2", afterMs: 5_000, env: {}, write: (bytes) => sent.push(bytes), quietMs: () => 60_000, focused: () => focused });
  t.after(() => notifier.close());
  notifier.update(state("running"));
  notifier.update(state("awaiting-approval", { pendingApprovals: [{ toolCallId: "a", toolName: "Bash", description: "" }] }));
  t.mock.timers.tick(2_000);
  assert.deepEqual(sent, [], "told while focused");
  focused = false;
  t.mock.timers.tick(1_000);
  assert.deepEqual(sent, ["\x1b]9;Harness: the run needs your approval for Bash\x07"]);
});
