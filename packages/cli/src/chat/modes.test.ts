// What the chat says and sends as its permission mode changes (modes.ts), against a session
// whose state the test moves.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessClient } from "@harness/client";
import type { HarnessCommand, HarnessState } from "@harness/protocol";
import { createChatModes, type PlanSwitch } from "./modes.ts";

function chatModes(plan?: PlanSwitch) {
  const listeners: ((state: HarnessState) => void)[] = [];
  const client = { state: { status: "idle", messages: [] } as unknown as HarnessState, on: (_event: string, listener: (state: HarnessState) => void) => listeners.push(listener) };
  const sent: HarnessCommand[] = [];
  const notes: string[] = [];
  const shown: (string | undefined)[] = [];
  const modes = createChatModes({ client: client as unknown as HarnessClient, ...(plan && { plan }), bypass: false, send: (command) => (sent.push(command), true), note: (text) => notes.push(text), show: (line) => shown.push(line) });
  return {
    modes,
    sent,
    notes,
    shown,
    /** The session moves to `status`. */
    session(status: string) {
      client.state = { ...client.state, status } as HarnessState;
      for (const listener of listeners) listener(client.state);
    },
  };
}

test("plan mode left with Shift+Tab while a planning run is under way says the run goes on planning", () => {
  const plan: PlanSwitch = { on: true };
  const chat = chatModes(plan);
  chat.session("running");
  chat.modes.cycle();
  assert.equal(plan.on, false, "the next prompt is not planned");
  assert.deepEqual(chat.sent, [], "the session is in the default mode already");
  assert.match(chat.notes.at(-1) ?? "", /plan mode off from the next prompt on: the run under way goes on planning until you approve its plan/);
  chat.modes.cycle();
  assert.match(chat.notes.at(-1) ?? "", /permission mode acceptEdits from the next model call on/);
  assert.deepEqual(chat.sent, [{ type: "configure", config: { permissionMode: "acceptEdits" } }], "which the run under way takes, leaving plan mode");
  chat.modes.line("/mode default");
  assert.doesNotMatch(chat.notes.at(-1) ?? "", /goes on planning/);
});

test("plan mode left with nothing under way, or with a run that did not start in it, says the new mode", () => {
  const plan: PlanSwitch = { on: true };
  const chat = chatModes(plan);
  chat.modes.line("/mode default");
  assert.equal(plan.on, false);
  chat.session("running");
  chat.modes.line("/mode plan");
  assert.equal(plan.on, true);
  chat.modes.cycle();
  assert.doesNotMatch(chat.notes.join("\n"), /goes on planning/, "the run under way was not planning");
});

test("/mode default typed while a planning run is under way says so too", () => {
  const plan: PlanSwitch = { on: true };
  const chat = chatModes(plan);
  chat.session("awaiting-approval");
  assert.deepEqual(chat.modes.line("/mode default"), {}, "nothing goes to the session, in the default mode already");
  assert.equal(plan.on, false);
  assert.match(chat.notes.at(-1) ?? "", /the run under way goes on planning/);
});
