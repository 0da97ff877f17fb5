// Permission modes in a chat of its own at a terminal, as a Claude Code user switches them: Shift+Tab
// cycles default → acceptEdits → plan, the mode shows under the typed line, and in plan mode the
// model only reads until the user approves the plan it presents with ExitPlanMode.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic } from "@harness/test-utils";
import { bin } from "../test-support.ts";
import { inTerminal } from "../test-screen.ts";

let fake: FakeAnthropic;
let home: string;
let project: string;

before(async () => {
  fake = await startFakeAnthropic();
  home = mkdtempSync(join(tmpdir(), "harness-plan-home-"));
  project = mkdtempSync(join(tmpdir(), "harness-plan-project-"));
});
after(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

const SHIFT_TAB = "\x1b[Z";
const ACCEPT_EDITS = /⏵⏵ accept edits on \(shift\+tab to cycle\)/;
const PLAN = /⏸ plan mode on \(shift\+tab to cycle\)/;

function localChat(t: { after(fn: () => unknown): void }, flags = "") {
  const env = { ...process.env, NO_COLOR: "1", TERM: "xterm", HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  return inTerminal(t, `exec bash ${JSON.stringify(bin)} chat --local ${flags}`, { cwd: project, env, columns: 80 });
}

/** All the text of a request the model was sent: its system prompt and its messages. */
function requestText(body: { system?: unknown; messages: unknown[] }): string {
  return JSON.stringify([body.system, body.messages]);
}

test("Shift+Tab cycles default, accept edits and plan mode, shown under the typed line, and a plan-mode prompt runs in plan mode", async (t) => {
  const chat = localChat(t);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type(SHIFT_TAB);
  await chat.bottom(ACCEPT_EDITS);
  chat.type(SHIFT_TAB);
  await chat.bottom(PLAN);
  assert.doesNotMatch(chat.rows().join("\n"), ACCEPT_EDITS, "one mode shows at a time");
  // Typed text stays on its own row above the mode.
  chat.type("look around");
  await chat.shows(/^look around\n⏸ plan mode on/m);
  fake.push({ toolUses: [{ name: "Write", input: { file_path: join(project, "sneaky.txt"), content: "x" } }] }, { text: "Nothing changed." });
  const asked = fake.requests.length;
  chat.type("\r");
  await chat.shows(/Nothing changed\./);
  const [first, second] = (await fake.waitForRequests(asked + 2)).slice(asked);
  assert.match(requestText(first.body), /Plan mode is on/);
  assert.match(requestText(second.body), /Plan mode is on: .*not allowed until the user approves a plan/);
  assert.equal(existsSync(join(project, "sneaky.txt")), false, "plan mode wrote nothing");
  assert.doesNotMatch(chat.rows().join("\n"), /needs approval/);
  // Back to the default mode: no indicator, and the next prompt is not planned.
  chat.type(SHIFT_TAB);
  await chat.gone(/shift\+tab to cycle/);
  fake.push({ text: "Plain." });
  const again = fake.requests.length;
  chat.type("hello\r");
  await chat.shows(/Plain\./);
  assert.doesNotMatch(JSON.stringify(fake.requests[again].body.messages.at(-1)), /Plan mode is on/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("an approved plan with auto-accept goes on in accept edits: the run's edits need no approval, and the next prompt is not planned", async (t) => {
  const target = join(project, "planned.txt");
  fake.push(
    { text: "Here is my plan.", toolUses: [{ name: "ExitPlanMode", input: { plan: "1. Write planned.txt\n2. Say done" } }] },
    { toolUses: [{ name: "Write", input: { file_path: target, content: "carried out\n" } }] },
    { text: "Done as planned." },
  );
  const chat = localChat(t, "--permission-mode plan");
  await chat.sees(/Ctrl\+D leaves/);
  await chat.bottom(PLAN);
  chat.type("plan the file\r");
  await chat.shows(/1\. Write planned\.txt\n\s+2\. Say done/);
  await chat.shows(/1\s+yes, and auto-accept edits/);
  await chat.shows(/2\s+yes, and approve each edit/);
  await chat.shows(/3\s+no, keep planning/);
  chat.type("1\r");
  await chat.shows(/Done as planned\./);
  assert.equal(readFileSync(target, "utf8"), "carried out\n");
  assert.doesNotMatch(chat.rows().join("\n"), /Write needs approval/);
  await chat.bottom(ACCEPT_EDITS);
  fake.push({ text: "Next." });
  const asked = fake.requests.length;
  chat.type("and now?\r");
  await chat.shows(/Next\./);
  assert.doesNotMatch(JSON.stringify(fake.requests[asked].body.messages.at(-1)), /Plan mode is on/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("keep planning refuses the plan with the user's reason, which the model reads, and plan mode stays on", async (t) => {
  fake.push({ toolUses: [{ name: "ExitPlanMode", input: { plan: "Rewrite everything" } }] }, { text: "I will plan smaller." });
  const chat = localChat(t, "--permission-mode plan");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("plan it\r");
  await chat.shows(/Rewrite everything/);
  const asked = fake.requests.length;
  chat.type("3 only touch the README\r");
  await chat.shows(/I will plan smaller\./);
  const [request] = (await fake.waitForRequests(asked + 1)).slice(asked);
  assert.match(requestText(request.body), /rejected the plan, so plan mode stays on. Their feedback: only touch the README/);
  await chat.bottom(PLAN);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a plan approved to review each edit goes on in the default mode: the run's edit asks, and the next prompt is not planned", async (t) => {
  const target = join(project, "reviewed.txt");
  fake.push(
    { toolUses: [{ name: "ExitPlanMode", input: { plan: "Write reviewed.txt" } }] },
    { toolUses: [{ name: "Write", input: { file_path: target, content: "checked\n" } }] },
    { text: "Written after review." },
  );
  const chat = localChat(t, "--permission-mode plan");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("plan a review\r");
  await chat.shows(/3\s+no, keep planning/);
  chat.type("2\r");
  await chat.shows(/Write needs approval/);
  assert.equal(existsSync(target), false, "the edit waits for its own approval");
  chat.type("y\r");
  await chat.shows(/Written after review\./);
  assert.equal(readFileSync(target, "utf8"), "checked\n");
  assert.doesNotMatch(chat.rows().join("\n"), /shift\+tab to cycle/);
  fake.push({ text: "Unplanned." });
  const asked = fake.requests.length;
  chat.type("next\r");
  await chat.shows(/Unplanned\./);
  assert.doesNotMatch(JSON.stringify(fake.requests[asked].body.messages.at(-1)), /Plan mode is on/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});
