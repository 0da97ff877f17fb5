import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessState } from "@harness/protocol";
import { CHAT_HELP, CHAT_KEYS, createApprovalNumbering, parseChatLine } from "./line.ts";

const idle: HarnessState = { status: "idle", messages: [] };
const running: HarnessState = { status: "running", messages: [] };
const waiting = (...ids: string[]): HarnessState => ({
  status: "awaiting-approval",
  messages: [],
  pendingApprovals: ids.map((toolCallId) => ({ toolCallId, toolName: "Bash", description: `run ${toolCallId}` })),
});

test("a line is a prompt when idle and steers a run under way; other slash commands go to the agent", () => {
  assert.deepEqual(parseChatLine("  fix the tests ", idle), { kind: "send", command: { type: "submit", prompt: "fix the tests" } });
  assert.deepEqual(parseChatLine("use pnpm", running), { kind: "send", command: { type: "steer", message: "use pnpm" } });
  assert.deepEqual(parseChatLine("/review src", idle), { kind: "send", command: { type: "submit", prompt: "/review src" } });
  assert.deepEqual(parseChatLine("   ", idle), { kind: "none" });
  assert.deepEqual(parseChatLine("/quit", running), { kind: "quit" });
  assert.deepEqual(parseChatLine("/exit", idle), { kind: "quit" });
  assert.deepEqual(parseChatLine("/help", idle), { kind: "help" });
  assert.deepEqual(parseChatLine("/commands", idle), { kind: "send", command: { type: "submit", prompt: "/help" } });
});

test("a ! line asks the session's runner to run the rest as a command (bash mode), and needs a command and no run under way", () => {
  assert.deepEqual(parseChatLine("! git status ", idle), { kind: "send", command: { type: "submit", prompt: "<bash-input>git status</bash-input>" } });
  assert.deepEqual(parseChatLine("!", idle), { kind: "error", message: "! takes a command to run in the project, e.g. !git status" });
  assert.deepEqual(parseChatLine("!ls", running), { kind: "error", message: "a run is under way: a ! command runs once it ends (or /cancel it first)" });
  assert.equal(parseChatLine("!ls", waiting("a")).kind, "error");
});

test("/approve and /deny pick the only waiting call, or the one named by number or id", () => {
  assert.deepEqual(parseChatLine("/approve", waiting("a")), { kind: "send", command: { type: "approve", toolCallId: "a" } });
  assert.deepEqual(parseChatLine("/approve 2", waiting("a", "b")), { kind: "send", command: { type: "approve", toolCallId: "b" } });
  assert.deepEqual(parseChatLine("/approve b", waiting("a", "b")), { kind: "send", command: { type: "approve", toolCallId: "b" } });
  assert.deepEqual(parseChatLine("/deny", waiting("a")), { kind: "send", command: { type: "deny", toolCallId: "a" } });
  assert.deepEqual(parseChatLine("/deny not in prod", waiting("a")), { kind: "send", command: { type: "deny", toolCallId: "a", reason: "not in prod" } });
  // With one call waiting, a number is part of the reason.
  assert.deepEqual(parseChatLine("/deny 2 files at most", waiting("a")), { kind: "send", command: { type: "deny", toolCallId: "a", reason: "2 files at most" } });
  assert.deepEqual(parseChatLine("/deny 1 not now", waiting("a")), { kind: "send", command: { type: "deny", toolCallId: "a", reason: "not now" } }, "1 is the only call's number");
  assert.deepEqual(parseChatLine("/deny 1 too risky", waiting("a", "b")), { kind: "send", command: { type: "deny", toolCallId: "a", reason: "too risky" } });
});

test("lines that cannot be acted on say why", () => {
  const cases: [string, HarnessState | undefined, string][] = [
    ["/approve", idle, "no call is waiting for approval"],
    ["/commands", running, "a run is under way: /commands lists the agent's commands once it ends"],
    ["/approve", undefined, "no call is waiting for approval"],
    ["/approve", waiting("a", "b"), "2 calls are waiting for approval: say which, /approve 1, /approve 2"],
    ["/deny because", waiting("a", "b"), "2 calls are waiting for approval: say which, /deny 1, /deny 2"],
    ["/approve 3", waiting("a", "b"), 'no call waiting for approval is "3": waiting: /approve 1, /approve 2'],
    ["/approve 1 2", waiting("a", "b"), "/approve takes at most one argument: which call"],
    ["/cancel", idle, "no run is under way"],
    ["/mode", idle, "/mode takes one of default, acceptEdits, bypassPermissions (or fullAuto)"],
    ["/mode yolo", idle, '/mode takes one of default, acceptEdits, bypassPermissions (or fullAuto), not "yolo"'],
    ["/model a b", idle, "/model takes one model id, e.g. /model claude-sonnet-4-5"],
    ["/model", running, "a run is under way: /model lists the models once it ends"],
  ];
  for (const [line, state, message] of cases) assert.deepEqual(parseChatLine(line, state), { kind: "error", message }, line);
  assert.deepEqual(parseChatLine("/mode acceptEdits", idle), { kind: "send", command: { type: "configure", config: { permissionMode: "acceptEdits" } } });
  assert.deepEqual(parseChatLine("/model claude-opus-4-1", running), { kind: "send", command: { type: "configure", config: { model: "claude-opus-4-1" } } });
  assert.deepEqual(parseChatLine("/cancel", running), { kind: "send", command: { type: "cancel" } });
  // Without an id the agent lists the current model and those one can switch to.
  assert.deepEqual(parseChatLine("/model", idle), { kind: "send", command: { type: "submit", prompt: "/model" } });
});

test("/rewind lists the prompts; /rewind N goes back to before prompt N", () => {
  const said = (id: string) => ({ id, role: "assistant" as const, content: "ok", status: "complete" as const });
  const asked = (id: string, content: string) => ({ id, role: "user" as const, content, status: "complete" as const });
  const state: HarnessState = { status: "idle", messages: [asked("u1", "write one"), said("a1"), asked("u2", "now \x1b[2Jwrite two\nand more"), said("a2")] };
  assert.deepEqual(parseChatLine("/rewind", state), {
    kind: "info",
    text: "/rewind N puts the conversation and the files back to how they were before prompt N:\n  1  write one\n  2  now [2Jwrite two …",
  });
  assert.deepEqual(parseChatLine("/rewind 2", state), { kind: "send", command: { type: "rewind", messageId: "u2" } });
  const refused: [string, HarnessState, string][] = [
    ["/rewind", idle, "nothing to rewind: the session has no prompt yet"],
    ["/rewind 3", state, "/rewind takes the number of a prompt, from 1 to 2 (/rewind alone lists them)"],
    ["/rewind u1", state, "/rewind takes the number of a prompt, from 1 to 2 (/rewind alone lists them)"],
    ["/rewind 1", { ...state, status: "running" }, "a run is under way: /cancel it, or wait for it to end, before rewinding"],
  ];
  for (const [line, at, message] of refused) assert.deepEqual(parseChatLine(line, at), { kind: "error", message }, line);
  // The built-in commands answered without the model (/cost, /context, /compact …) are no prompts to
  // go back to; a custom or prompt command (/review) is.
  const withCommands: HarnessState = { ...state, messages: [asked("c1", "/cost"), said("r1"), ...state.messages, asked("c2", "/context"), said("r2"), asked("p3", "/review the diff"), said("a3")] };
  assert.deepEqual(parseChatLine("/rewind", withCommands), {
    kind: "info",
    text: "/rewind N puts the conversation and the files back to how they were before prompt N:\n  1  write one\n  2  now [2Jwrite two …\n  3  /review the diff",
  });
  assert.deepEqual(parseChatLine("/rewind 3", withCommands), { kind: "send", command: { type: "rewind", messageId: "p3" } });
  assert.deepEqual(parseChatLine("/rewind", { status: "idle", messages: [asked("c1", "/cost"), said("r1")] }), { kind: "error", message: "nothing to rewind: the session has no prompt yet" });
  // A steer joined the run under way (the server refuses a rewind to it): no prompt to go back to.
  const withSteer: HarnessState = { ...state, messages: [...state.messages.slice(0, 3), { ...asked("s1", "also a test"), steer: true }, said("a2b"), said("a2")] };
  assert.deepEqual(parseChatLine("/rewind", withSteer), {
    kind: "info",
    text: "/rewind N puts the conversation and the files back to how they were before prompt N:\n  1  write one\n  2  now [2Jwrite two …",
  });
  assert.deepEqual(parseChatLine("/rewind 3", withSteer), { kind: "error", message: "/rewind takes the number of a prompt, from 1 to 2 (/rewind alone lists them)" });
});

test("calls keep the numbers they were shown with while others are answered; an answered one is never another", () => {
  const numbering = createApprovalNumbering();
  const parse = (line: string, state: HarnessState) => parseChatLine(line, state, numbering.update(state));
  assert.deepEqual(parse("/approve 1", waiting("a", "b", "c")), { kind: "send", command: { type: "approve", toolCallId: "a" } });
  // a ran: b and c are still 2 and 3, as on the screen.
  assert.deepEqual(parse("/approve 2", waiting("b", "c")), { kind: "send", command: { type: "approve", toolCallId: "b" } });
  assert.deepEqual(parse("/approve 2", waiting("c")), { kind: "error", message: "call 2 no longer waits for approval (it was answered); waiting: /approve 3" });
  assert.deepEqual(parse("/deny 2 too risky", waiting("c")), { kind: "error", message: "call 2 no longer waits for approval (it was answered); waiting: /deny 3" });
  assert.deepEqual(parse("/deny 3 too risky", waiting("c")), { kind: "send", command: { type: "deny", toolCallId: "c", reason: "too risky" } });
  assert.deepEqual(parse("/deny 5 files at most", waiting("c")), { kind: "send", command: { type: "deny", toolCallId: "c", reason: "5 files at most" } });
  // None waits: the next calls are counted from 1 again.
  numbering.update(idle);
  assert.deepEqual(parse("/approve 2", waiting("d", "e")), { kind: "send", command: { type: "approve", toolCallId: "e" } });
});

test("at an approval, y or yes allows the oldest waiting call and n or no [reason] denies it, saying which", () => {
  assert.deepEqual(parseChatLine("y", waiting("a")), { kind: "send", command: { type: "approve", toolCallId: "a" }, said: "(allowed Bash: run a)" });
  assert.deepEqual(parseChatLine(" YES ", waiting("a")), { kind: "send", command: { type: "approve", toolCallId: "a" }, said: "(allowed Bash: run a)" });
  assert.deepEqual(parseChatLine("n", waiting("a")), { kind: "send", command: { type: "deny", toolCallId: "a" }, said: "(denied Bash: run a)" });
  assert.deepEqual(parseChatLine("no use the staging db", waiting("a")), {
    kind: "send",
    command: { type: "deny", toolCallId: "a", reason: "use the staging db" },
    said: "(denied Bash: run a; the reason goes to the agent)",
  });
  assert.deepEqual(parseChatLine("y", waiting("a", "b")), { kind: "send", command: { type: "approve", toolCallId: "a" }, said: "(allowed 1, Bash: run a; 1 more waits)" });
});

test("other text while a call waits is refused with what to type, instead of being sent", () => {
  const refused = parseChatLine("what does it do?", waiting("a"));
  assert.deepEqual(refused, { kind: "error", message: "a call waits for approval: y to allow it, n [reason] to deny it (or /cancel the run); then type your message" });
  assert.equal(parseChatLine("yep", waiting("a")).kind, "error");
  // Nothing waits: y is a prompt like any other.
  assert.deepEqual(parseChatLine("y", idle), { kind: "send", command: { type: "submit", prompt: "y" } });
  assert.deepEqual(parseChatLine("y", running), { kind: "send", command: { type: "steer", message: "y" } });
});

test("the chat's /help names the agent's reports, which answer without the model", () => {
  for (const report of ["/context", "/cost", "/mcp", "/memory", "/agents", "/hooks", "/status", "/todos", "/export", "/permissions"]) assert.match(CHAT_HELP, new RegExp(`${report}\\b`));
});

test("the chat's /help names /compact and /clear, which Claude Code users look for there", () => {
  assert.match(CHAT_HELP, /\/compact \[instructions\]/);
  assert.match(CHAT_HELP, /\/clear\b/);
});

test("/resume and /rename are the chat's own: a switch of session waits for the run under way to end", () => {
  assert.deepEqual(parseChatLine("/resume", idle), { kind: "session", verb: "resume", arg: "" });
  assert.deepEqual(parseChatLine("/resume", running), { kind: "session", verb: "resume", arg: "" });
  assert.deepEqual(parseChatLine("/resume  2 ", idle), { kind: "session", verb: "resume", arg: "2" });
  assert.deepEqual(parseChatLine("/resume 2", running), { kind: "error", message: "a run is under way: /cancel it, or wait for it to end, before /resume switches sessions" });
  assert.deepEqual(parseChatLine("/resume 2", waiting("a")), { kind: "error", message: "a run is under way: /cancel it, or wait for it to end, before /resume switches sessions" });
  assert.deepEqual(parseChatLine("/rename  Bug   hunt ", running), { kind: "session", verb: "rename", arg: "Bug   hunt" });
  assert.deepEqual(parseChatLine("/rename", idle), { kind: "session", verb: "rename", arg: "" });
  assert.match(CHAT_HELP, /\/resume \[N\|ID\]/);
  assert.match(CHAT_HELP, /\/rename \[TITLE\]/);
});

test("Claude Code's commands the chat lacks are answered by it, unless the agent has its own of the name", () => {
  assert.deepEqual(parseChatLine("/vim", idle), { kind: "vim" });
  assert.deepEqual(parseChatLine("/vim", running), { kind: "vim" }, "not a steer");
  assert.deepEqual(parseChatLine("/vim on", idle), { kind: "error", message: "/vim takes nothing after it: it turns vim mode on or off" });
  assert.equal(parseChatLine("/terminal-setup", running).kind, "info", "not a steer either");
  const doctor = { kind: "send", command: { type: "submit", prompt: "/doctor" } };
  assert.deepEqual(parseChatLine("/doctor", idle, undefined, ["doctor"]), doctor);
  assert.deepEqual(parseChatLine("/doctor", { ...idle, available: { slashCommands: ["doctor"] } } as HarnessState), doctor);
  assert.deepEqual(parseChatLine("/vimrc please", idle), { kind: "send", command: { type: "submit", prompt: "/vimrc please" } });
  assert.deepEqual(parseChatLine("/toString", idle), { kind: "send", command: { type: "submit", prompt: "/toString" } });
});

test("the chat's /help shows the \\ that continues a line, and fits a terminal of 100 columns", () => {
  assert.match(CHAT_HELP, /A line ending in \\ \(or Alt\+Enter/);
  for (const line of [...CHAT_HELP.split("\n"), ...CHAT_KEYS.split("\n")]) assert.ok([...line].length <= 100, `${[...line].length} columns: ${line}`);
});

test("/tasks and /bashes go to the agent between runs; while a run is under way the chat lists the state's shells and a kill goes to the run; a kill of a shell the state shows running is a kill-shell between runs too", () => {
  assert.deepEqual(parseChatLine("/tasks", idle), { kind: "send", command: { type: "submit", prompt: "/tasks" } });
  assert.deepEqual(parseChatLine(" /tasks kill ab12cd ", idle), { kind: "send", command: { type: "submit", prompt: "/tasks kill ab12cd" } });
  assert.deepEqual(parseChatLine("/bashes", idle), { kind: "send", command: { type: "submit", prompt: "/bashes" } });
  assert.deepEqual(parseChatLine("/tasks", running), { kind: "info", text: "No background shells: Bash starts one with run_in_background, or Ctrl+B moves a running command to the background." });
  const now = Date.now();
  const shells = [
    { id: "ab12cd", command: "npm run dev", status: "running" as const, startedAt: now - 65_000 },
    { id: "ef34ab", command: "exit 2", status: "failed" as const, startedAt: now - 5_000, endedAt: now - 4_000, exitCode: 2 },
  ];
  const withShells = { ...running, shells };
  const listed = parseChatLine("/bashes", withShells);
  assert.equal(listed.kind, "info");
  const text = listed.kind === "info" ? listed.text : "";
  assert.match(text, /^Background shells: 1 running of 2\n\n {2}ab12cd {2}running {10}1m 0[5-6]s {2}npm run dev\n {2}ef34ab {2}failed \(exit 2\) {2}1s {6}exit 2\n\n\/bashes kill <id> stops one/);
  assert.deepEqual(parseChatLine("/tasks kill ab12cd", withShells), { kind: "send", command: { type: "kill-shell", shellId: "ab12cd" }, said: "(stopping background shell ab12cd: npm run dev)" });
  assert.deepEqual(parseChatLine("/tasks kill ef34ab", withShells), { kind: "error", message: "background shell ef34ab is not running (failed (exit 2)): nothing to kill" });
  assert.deepEqual(parseChatLine("/tasks kill nope", withShells), { kind: "error", message: 'no background shell "nope": /tasks lists them' });
  assert.deepEqual(parseChatLine("/tasks stop it", withShells), { kind: "error", message: '/tasks takes nothing, or kill <id> to stop a background shell, not "stop it"' });
  // Between runs: a shell the state shows running is stopped by the session, no prompt sent; one it
  // does not show running goes to the agent, which knows.
  const between = { ...idle, shells };
  assert.deepEqual(parseChatLine("/tasks kill ab12cd", between), { kind: "send", command: { type: "kill-shell", shellId: "ab12cd" }, said: "(stopping background shell ab12cd: npm run dev)" });
  assert.deepEqual(parseChatLine("/tasks kill ef34ab", between), { kind: "send", command: { type: "submit", prompt: "/tasks kill ef34ab" } });
  assert.deepEqual(parseChatLine("/tasks", between), { kind: "send", command: { type: "submit", prompt: "/tasks" } });
  assert.match(CHAT_HELP, /\/tasks \[kill ID\]/);
  assert.match(CHAT_KEYS, /Ctrl\+B +move the running Bash call to the background/);
});
