// Random command sequences, runner events and client disconnects against one session, from fixed
// seeds (reproducible): afterwards every client holds exactly the session's state, and so does the
// session restored from its store.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessCommand, HarnessState, RunnerEventPayload } from "@harness/protocol";
import { createFakeRunner, type FakeRun } from "./fake-runner.ts";
import { openSession } from "./session.ts";
import { memoryStore } from "./store.ts";
import { commandsFrame, recorder, settle, until, type Recorder } from "./test-helpers.ts";

const SEEDS = [1, 7, 42, 1234, 98765];
const STEPS = 300;

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

for (const seed of SEEDS) {
  test(`random commands, runner events and disconnects leave every client with the session's state (seed ${seed})`, async () => {
    const random = prng(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const chance = (p: number) => random() < p;
    const runner = createFakeRunner();
    runner.onRewind = (request) => ({ ok: true, value: { dryRun: request.dryRun, files: chance(0.5) ? [{ path: "f.txt", action: "restore" }] : [] } });
    const store = memoryStore();
    const peer = { state: { status: "idle", messages: [{ id: "p1", role: "user", content: "old", status: "complete" }, { id: "p2", role: "assistant", content: "reply", status: "complete" }] } as HarnessState, transcript: [], marks: { p1: 0 } };
    const session = await openSession({ runner, store, logCapacity: 16, sessionId: "self", loadPeer: async (id) => (id === "peer" ? structuredClone(peer) : undefined), onError: (e) => assert.fail(String(e)) });
    const clients: Recorder[] = [recorder(), recorder()];
    for (const c of clients) session.connect(c);
    const away: Recorder[] = [];
    let toolIds = 0;
    let runsSeen = 0;

    const currentRun = (): FakeRun | undefined => {
      const run = runner.runs.at(-1);
      return run && run.readers() > 0 && !run.events.some((e) => e.type === "run.completed" || e.type === "run.error") ? run : undefined;
    };
    const state = () => session.snapshot().state;
    const someMessageId = () => (state().messages.length && chance(0.85) ? pick(state().messages).id : "missing");
    const somePending = () => pick(state().pendingApprovals?.map((p) => p.toolCallId) ?? ["none"]);

    const commands: (() => HarnessCommand | unknown)[] = [
      () => ({ type: "submit", prompt: `prompt ${Math.floor(random() * 100)}` }),
      () => ({ type: "steer", message: "steer" }),
      () => ({ type: "cancel" }),
      () => ({ type: "approve", toolCallId: somePending() }),
      () => ({ type: "deny", toolCallId: somePending(), reason: "no" }),
      () => ({ type: "configure", config: pick([{ model: "a" }, { effort: "high" }, { permissionMode: "fullAuto" }, { maxTurns: -1 }, { nope: 1 }]) }),
      () => ({ type: "rewind", messageId: someMessageId(), dryRun: chance(0.5) }),
      () => ({ type: "resume", prompt: "go on", sessionId: pick(["peer", "self", "ghost"]) }),
      () => ({ type: pick(["teleport", "submit"]) }),
    ];

    const runnerEvent = (run: FakeRun): RunnerEventPayload | "fail" | "end" => {
      const calls = state().messages.at(-1)?.toolCalls ?? [];
      const open = calls.filter((c) => c.status === "running" || c.status === "awaiting-approval");
      const roll = random();
      if (!run.events.length) return { type: "run.started", requestId: `r${runsSeen}` };
      if (roll < 0.35) return { type: "assistant.delta", text: pick(["a", "b ", "\n", "ccc"]) };
      if (roll < 0.45) return { type: "tool.started", toolName: "Bash", toolUseId: `t${++toolIds}`, input: { command: "ls" } };
      if (roll < 0.55 && open.length) {
        const call = pick(open);
        return { type: "tool.completed", toolUseId: call.id, output: "out", isError: chance(0.2) };
      }
      if (roll < 0.65 && open.length) {
        const call = pick(open);
        return { type: "approval.requested", toolUseId: call.id, toolName: call.name, description: "do it" };
      }
      if (roll < 0.75 && state().pendingApprovals?.length) {
        return { type: "approval.resolved", toolUseId: somePending(), behavior: chance(0.5) ? "allow" : "deny" };
      }
      if (roll < 0.8) return { type: "user.message", text: "steer", steer: true };
      if (roll < 0.85) return { type: "notice", level: "info", message: "fyi" };
      if (roll < 0.88) return "fail";
      if (roll < 0.9) return "end";
      if (roll < 0.96) return { type: "run.completed", usage: { inputTokens: 1, outputTokens: 1 } };
      return { type: "run.error", message: "boom" };
    };

    for (let step = 0; step < STEPS; step++) {
      const roll = random();
      if (roll < 0.3 && clients.length) {
        const client = pick(clients);
        const frame = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(commands)());
        session.receive(client, chance(0.05) ? "{not json" : commandsFrame(...frame));
      } else if (roll < 0.7) {
        const run = currentRun();
        if (run) {
          if (run !== runner.runs[runsSeen - 1]) runsSeen = runner.runs.length;
          const event = runnerEvent(run);
          if (event === "fail") run.fail(new Error("stream broke"));
          else if (event === "end") run.end();
          else run.emit(event);
        }
      } else if (roll < 0.78 && clients.length) {
        const client = clients.splice(Math.floor(random() * clients.length), 1)[0];
        session.disconnect(client);
        away.push(client);
      } else if (roll < 0.86 && away.length) {
        const back = away.splice(Math.floor(random() * away.length), 1)[0];
        const again = back.state ? recorder({ state: back.state, seq: back.seq }) : recorder();
        session.connect(again, back.state ? back.seq : undefined);
        clients.push(again);
      } else if (roll < 0.9) {
        const fresh = recorder();
        session.connect(fresh);
        clients.push(fresh);
      } else if (roll < 0.93) {
        await session.flush();
      }
      if (chance(0.5)) await settle();
    }

    // Let whatever is in flight end, then compare.
    for (let i = 0; i < 5 && session.busy; i++) {
      const run = currentRun();
      if (run) run.emit({ type: "run.completed" });
      else session.receive(recorder(), commandsFrame({ type: "cancel" }));
      await settle();
    }
    await until(() => !session.busy, "the session to be idle");
    await settle();
    for (const back of away) {
      const again = back.state ? recorder({ state: back.state, seq: back.seq }) : recorder();
      session.connect(again, back.state ? back.seq : undefined);
      clients.push(again);
    }
    const final = session.snapshot();
    for (const client of clients) {
      assert.deepEqual(client.state, final.state);
      assert.equal(client.seq, final.seq);
    }
    await session.close();
    const restored = await openSession({ runner: createFakeRunner(), store });
    assert.deepEqual(restored.snapshot(), final);
    assert.deepEqual(restored.transcript, session.transcript);
    await restored.close();
  });
}
