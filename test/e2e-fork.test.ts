// Fork end to end (a real `harness serve`, its runner processes, the fake model): whatever point a
// fork starts from, its next model request holds exactly the conversation its state shows, and
// its files are the source's as they were at that point.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MinimalState } from "@harness/test-utils";
import { idle, startHarness, type Harness } from "./e2e-commands-support.ts";

type Block = { type: string; text?: string };
type RequestMessage = { role: string; content: string | Block[] };

/** The conversation a model request carries, as role and text per turn: turns that hold only tool
 * calls or results (which the state shows inside its assistant message) are left out. */
function conversationSent(messages: RequestMessage[]): string[] {
  const turns: string[] = [];
  for (const m of messages) {
    const text = typeof m.content === "string" ? m.content : m.content.filter((b) => b.type === "text" && !b.text!.startsWith("<system-reminder>")).map((b) => b.text).join("\n");
    if (text !== "") turns.push(`${m.role}: ${text}`);
  }
  return turns;
}

const conversationShown = (state: MinimalState) => state.messages.map((m) => `${m.role}: ${m.content}`);

async function fork(h: Harness, body: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${h.server.url}/sessions/s2/fork`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "alice", ...body }) });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

test("after a fork at a user message, at a reply or at the end, the model is sent what the fork shows, and the fork's files are as they were there", async () => {
  const h = await startHarness();
  try {
    h.fake.push({ text: "Hi." }, { toolUses: [{ name: "Write", input: { file_path: "made.txt", content: "made" } }] }, { text: "Made." });
    const source = await h.connect("s2");
    source.send({ type: "configure", config: { permissionMode: "acceptEdits" } }, { type: "submit", prompt: "hello" });
    await source.waitForState((s) => idle(s) && s.messages.length === 2, 30_000, "the first run");
    source.send({ type: "submit", prompt: "make a file" });
    await source.waitForState((s) => idle(s) && s.messages.length === 4, 30_000, "the second run");
    assert.deepEqual(source.errors, []);
    const [hello, hi, makeFile] = source.state!.messages;
    await source.close();

    const cases = [
      // At a user message: the conversation before it, its files as before its run, and its
      // prompt handed back (for the input) instead of sent again.
      { sessionId: "at-first-prompt", messageId: hello.id, shown: [], prompt: "hello", made: false },
      { sessionId: "at-second-prompt", messageId: makeFile.id, shown: ["user: hello", "assistant: Hi."], prompt: "make a file", made: false },
      // At a reply: up to and including it, its files as when it ended.
      { sessionId: "at-reply", messageId: hi.id, shown: ["user: hello", "assistant: Hi."], made: false },
      { sessionId: "whole", shown: ["user: hello", "assistant: Hi.", "user: make a file", "assistant: Made."], made: true },
    ];
    for (const c of cases) {
      const answer = await fork(h, { sessionId: c.sessionId, ...(c.messageId && { messageId: c.messageId }) });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.prompt, c.prompt, c.sessionId);
      assert.equal(existsSync(join(h.workspace("alice", c.sessionId), "made.txt")), c.made, `${c.sessionId}: made.txt`);
      const client = await h.connect(c.sessionId);
      assert.deepEqual(conversationShown(client.state!), c.shown, c.sessionId);
      const before = h.fake.requests.length;
      h.fake.push({ text: "Next done." });
      client.send({ type: "submit", prompt: "next" });
      await client.waitForState((s) => idle(s) && s.messages.length === c.shown.length + 2, 30_000, `${c.sessionId}'s run`);
      assert.deepEqual(client.errors, []);
      const sent = h.fake.requests[before].body.messages as RequestMessage[];
      assert.deepEqual(conversationSent(sent), [...c.shown, "user: next"], `${c.sessionId}: the model's context`);
      assert.deepEqual(conversationShown(client.state!), [...c.shown, "user: next", "assistant: Next done."], c.sessionId);
      await client.close();
    }
    assert.equal(await readFile(join(h.workspace("alice", "s2"), "made.txt"), "utf8"), "made", "the source keeps its files");
  } finally {
    await h.close();
  }
});
