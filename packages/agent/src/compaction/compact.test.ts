import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContentBlock, ModelMessage } from "@harness/llm";
import { runAgent } from "../loop/run-agent.ts";
import { assertValidTranscript } from "../testing/fixtures.ts";
import { scriptedProvider } from "../testing/scripted-provider.ts";
import { compact } from "./compact.ts";
import { contextMessages, rejoinTranscript } from "./context-messages.ts";
import { renderForSummary } from "./render-transcript.ts";
import { chooseSplit, estimateTokens } from "./split-point.ts";
import type { TranscriptEntry } from "./types.ts";

const signal = new AbortController().signal;
const user = (text: string): ModelMessage => ({ role: "user", content: text });
const reply = (text: string): ModelMessage => ({ role: "assistant", content: [{ type: "text", text }] });
function toolStep(id: string, name: string, input: Record<string, unknown>, output: string, text?: string): ModelMessage[] {
  const content: ContentBlock[] = [{ type: "tool_use", id, name, input }];
  if (text) content.unshift({ type: "text", text });
  return [
    { role: "assistant", content },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
  ];
}

/** Four user turns with tool calls, 14 messages. */
function session(): TranscriptEntry[] {
  return [
    user("Add a health endpoint to server.ts"),
    ...toolStep("toolu_1", "Read", { file_path: "server.ts" }, "export const app = createApp();"),
    reply("Added GET /health to server.ts."),
    user("Now write a test for it"),
    ...toolStep("toolu_2", "Write", { file_path: "server.test.ts", content: "test('health')" }, "File created"),
    reply("Wrote server.test.ts."),
    user("Run the tests"),
    ...toolStep("toolu_3", "Bash", { command: "npm test" }, "2 passing"),
    reply("All tests pass."),
    user("Commit it"),
    reply("Committed as abc123."),
  ];
}

function textIn(message: ModelMessage | TranscriptEntry): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

test("compaction summarizes the older turns, keeps the recent ones verbatim and keeps every message in the transcript", async () => {
  const transcript = session();
  const before = structuredClone(transcript);
  const provider = scriptedProvider([{ text: "<summary>The user wants a /health endpoint; done and tested.</summary>", usage: { inputTokens: 900, outputTokens: 40 } }]);
  const result = await compact({ transcript, provider, model: "claude-sonnet-4-6", keepRecent: 2, instructions: "Focus on the API surface", signal });
  assert.ok(!("error" in result), "error" in result ? result.error : "");

  // The request: no tools, the summarized messages and the user's instructions.
  const [request] = provider.requests;
  assert.equal(request.tools, undefined);
  assert.equal(request.model, "claude-sonnet-4-6");
  assert.equal(request.messages.length, 1);
  const asked = textIn(request.messages[0]);
  for (const dropped of ["Add a health endpoint to server.ts", "export const app = createApp();", "Wrote server.test.ts.", "server.test.ts", "Focus on the API surface"]) {
    assert.ok(asked.includes(dropped), `the summary request lacks ${JSON.stringify(dropped)}`);
  }
  for (const keptText of ["Run the tests", "2 passing", "Commit it"]) assert.ok(!asked.includes(keptText), `the summary request holds kept text ${keptText}`);

  assert.equal(result.summary, "The user wants a /health endpoint; done and tested.");
  assert.equal(result.dropped, 8);
  assert.deepEqual(result.usage, { inputTokens: 900, outputTokens: 40 });
  assert.deepEqual(transcript, before, "the input transcript was modified");

  // The full transcript: all eight summarized messages, the summary (holding the first kept user
  // message), then the rest.
  assert.equal(result.transcript.length, 14);
  assert.deepEqual(result.transcript.slice(0, 8), before.slice(0, 8));
  const summary = result.transcript[8];
  assert.deepEqual(summary.meta, { kind: "compact-summary", dropped: 8 });
  assert.equal(summary.role, "user");
  assert.match(textIn(summary), /This session is being continued from a previous conversation that ran out of context/);
  assert.match(textIn(summary), /The user wants a \/health endpoint; done and tested\./);
  assert.match(textIn(summary), /Run the tests/);
  assert.deepEqual(result.transcript.slice(9), before.slice(9));

  // What the model sees from now on: the summary and the recent turns, without meta.
  const context = contextMessages(result.transcript);
  assert.equal(context.length, 6);
  assert.ok(context.every((m) => !("meta" in m)));
  assert.equal(textIn(context[5]), textIn(reply("Committed as abc123.")));
  assertValidTranscript(context);
});

test("a second compaction summarizes the first summary too, and the model's context starts at the newest", async () => {
  const provider = scriptedProvider([{ text: "FIRST SUMMARY" }, { text: "<analysis>thinking</analysis><summary>SECOND SUMMARY</summary>" }]);
  const first = await compact({ transcript: session(), provider, model: "m", keepRecent: 2, signal });
  assert.ok(!("error" in first));
  const grown = [...first.transcript, user("Deploy it"), ...toolStep("toolu_4", "Bash", { command: "make deploy" }, "deployed"), reply("Deployed.")];
  const second = await compact({ transcript: grown, provider, model: "m", keepRecent: 1, signal });
  assert.ok(!("error" in second));

  const asked = textIn(provider.requests[1].messages[0]);
  assert.ok(asked.includes("FIRST SUMMARY"));
  assert.ok(asked.includes("Commit it"));
  assert.ok(!asked.includes("export const app"), "messages summarized before were sent again");
  assert.equal(second.summary, "SECOND SUMMARY");

  assert.equal(second.transcript.length, grown.length);
  assert.equal(second.transcript.filter((m) => m.meta?.kind === "compact-summary").length, 2);
  const context = contextMessages(second.transcript);
  assert.match(textIn(context[0]), /SECOND SUMMARY/);
  assert.match(textIn(context[0]), /Deploy it/);
  assert.doesNotMatch(textIn(context[0]), /FIRST SUMMARY/);
  assertValidTranscript(context);
});

test("a tool_use and its tool_result are never separated, wherever the cut falls", async () => {
  const big = "x".repeat(4_000);
  const longTurn: ModelMessage[] = [user("Refactor the parser")];
  for (let i = 1; i <= 6; i++) longTurn.push(...toolStep(`toolu_${i}`, "Read", { file_path: `f${i}.ts` }, big, `Step ${i}`));
  longTurn.push(reply("Refactored."));
  const transcripts: ModelMessage[][] = [longTurn, [...session(), ...longTurn.map((m) => (m === longTurn[0] ? user("And refactor the parser") : m))]];
  // An interrupted run leaves a user message with tool results and the next prompt together.
  transcripts.push([
    user("Start"),
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_x", name: "Bash", input: { command: "sleep 100" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "Interrupted by user", is_error: true }, { type: "text", text: "Never mind, stop" }] },
    reply("Stopped."),
  ]);

  for (const transcript of transcripts) {
    for (const keepRecent of [0, 1, 2, 3]) {
      for (const keepTokens of [0, 500, 2_500, 1_000_000]) {
        const split = chooseSplit(transcript, { keepRecent, keepTokens });
        const at = transcript[split];
        if (at) {
          const holdsResult = typeof at.content !== "string" && at.content.some((b) => b.type === "tool_result");
          assert.ok(at.role === "assistant" || !holdsResult, `cut at ${split} falls after a tool_use`);
        }
        const provider = scriptedProvider([{ text: "summary" }]);
        const result = await compact({ transcript, provider, model: "m", keepRecent, keepTokens, signal });
        assert.ok(!("error" in result), `keepRecent ${keepRecent}, keepTokens ${keepTokens}`);
        assert.equal(result.dropped, split);
        assertValidTranscript(contextMessages(result.transcript));
      }
    }
  }
});

test("what is kept verbatim stays within its token budget, cutting inside a long turn if need be", async () => {
  const big = "y".repeat(40_000); // ~10k tokens each
  const transcript: ModelMessage[] = [user("Audit every module")];
  for (let i = 1; i <= 5; i++) transcript.push(...toolStep(`toolu_${i}`, "Read", { file_path: `m${i}.ts` }, big));
  transcript.push(reply("Audit done."));
  // Only the last two tool steps and the reply fit: the cut is right before the fourth tool call.
  const split = chooseSplit(transcript, { keepRecent: 2, keepTokens: 25_000 });
  assert.equal(split, 7);
  assert.equal(transcript[split].role, "assistant");
  // A single turn keeps at most half of itself, however large the budget.
  const half = chooseSplit(transcript, { keepRecent: 2, keepTokens: 1_000_000 });
  assert.equal(half, 7);

  const result = await compact({ transcript, provider: scriptedProvider([{ text: "summary" }]), model: "m", keepTokens: 25_000, signal });
  assert.ok(!("error" in result));
  const context = contextMessages(result.transcript);
  assert.equal(context.length, 1 + transcript.length - 7);
  assert.equal(context[1].role, "assistant");
  assertValidTranscript(context);

  // Over several turns, the recent turns shrink to the budget too.
  const turns = [...session(), user("Read the logs"), ...toolStep("toolu_9", "Read", { file_path: "app.log" }, big), reply("Logs read.")];
  assert.equal(chooseSplit(turns, { keepRecent: 2, keepTokens: 20_000 }), 12);
  assert.equal(chooseSplit(turns, { keepRecent: 2, keepTokens: 5_000 }), 17);
});

test("a failed summary request returns an error and leaves the transcript as it was", async () => {
  const transcript = session();
  const before = structuredClone(transcript);
  const failed = await compact({ transcript, provider: scriptedProvider([{ text: "partial", error: "529 overloaded" }]), model: "m", signal });
  assert.ok("error" in failed);
  assert.match(failed.error, /The summary request failed: 529 overloaded/);
  assert.deepEqual(transcript, before);

  const empty = await compact({ transcript, provider: scriptedProvider([{ text: "<summary>  </summary>" }]), model: "m", signal });
  assert.deepEqual(empty, { error: "The model returned an empty summary.", usage: { inputTokens: 10, outputTokens: 5 } });

  const controller = new AbortController();
  controller.abort();
  const cancelled = await compact({ transcript, provider: scriptedProvider([{ text: "summary" }]), model: "m", signal: controller.signal });
  assert.ok("error" in cancelled);
  assert.match(cancelled.error, /cancelled/);

  const throwing = { name: "broken", stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("socket closed")) }) }) };
  const thrown = await compact({ transcript, provider: throwing, model: "m", signal });
  assert.ok("error" in thrown);
  assert.match(thrown.error, /socket closed/);
  assert.deepEqual(transcript, before);
});

test("nothing to compact: an empty conversation, or one already reduced to its summary", async () => {
  const provider = scriptedProvider([]);
  const none = await compact({ transcript: [], provider, model: "m", signal });
  assert.ok("error" in none);
  assert.match(none.error, /Nothing to compact/);
  const onlySummary: TranscriptEntry[] = [user("old"), { role: "user", content: "summary", meta: { kind: "compact-summary", dropped: 1 } }];
  const again = await compact({ transcript: onlySummary, provider, model: "m", signal });
  assert.ok("error" in again);
  assert.equal(provider.requests.length, 0);
});

test("after compaction a run sends only the summary and what follows, and its transcript rejoins the record", async () => {
  const provider = scriptedProvider([{ text: "<summary>Health endpoint done.</summary>" }, { text: "Sure, deploying." }]);
  const compacted = await compact({ transcript: session(), provider, model: "m", keepRecent: 0, signal });
  assert.ok(!("error" in compacted));
  assert.equal(compacted.dropped, 14);
  assert.equal(contextMessages(compacted.transcript).length, 1);

  const run = await runAgent({ prompt: "Now deploy", history: contextMessages(compacted.transcript), provider, model: "m", cwd: "/", tools: [], loadUserConfig: false, signal, emit: () => {} });
  const sent = provider.requests[1].messages;
  assert.equal(sent.length, 1);
  assert.ok(!("meta" in sent[0]));
  assert.match(textIn(sent[0]), /Health endpoint done\.[\s\S]*Now deploy/);

  const full = rejoinTranscript(compacted.transcript, run.transcript);
  assert.equal(full.length, 16);
  assert.deepEqual(full.slice(0, 14), session());
  assert.deepEqual(full[14].meta, { kind: "compact-summary", dropped: 14 });
  assert.deepEqual(contextMessages(full), run.transcript);
});

test("a run's transcript begins with the very messages of its history, the summary included, so that only the added ones need to travel", async () => {
  const provider = scriptedProvider([{ text: "<summary>Health endpoint done.</summary>" }, { text: "Deployed." }, { text: "Checked." }]);
  const compacted = await compact({ transcript: session(), provider, model: "m", keepRecent: 0, signal });
  assert.ok(!("error" in compacted));
  const options = { provider, model: "m", cwd: "/", tools: [], loadUserConfig: false, signal, emit: () => {} };
  const first = await runAgent({ ...options, prompt: "Now deploy", history: compacted.transcript });
  const second = await runAgent({ ...options, prompt: "Check it", history: first.transcript });
  assert.equal(second.transcript.length, first.transcript.length + 2);
  first.transcript.forEach((message, i) => assert.equal(second.transcript[i], message, `message ${i} is the history's own`));
  assert.deepEqual(second.transcript[14].meta, { kind: "compact-summary", dropped: 14 });
});

test("what the provider warns about while the summary is requested reaches onWarning", async () => {
  const scripted = scriptedProvider([{ text: "<summary>S</summary>" }]);
  // The provider says its warning (a deprecated model) before the reply, as the Anthropic one does.
  const provider = {
    name: scripted.name,
    async *stream(request: Parameters<typeof scripted.stream>[0]) {
      yield { type: "warning" as const, message: "The model 'm' is deprecated" };
      yield* scripted.stream(request);
    },
  };
  const warnings: string[] = [];
  const result = await compact({ transcript: session(), provider, model: "m", keepRecent: 2, signal, onWarning: (m) => warnings.push(m) });
  assert.equal("summary" in result && result.summary, "S");
  assert.deepEqual(warnings, ["The model 'm' is deprecated"]);
});

test("a PDF a tool returned is named in the summary request, not sent as base64, and counts as a large block", async () => {
  const document = { type: "document" as const, source: { type: "base64" as const, media_type: "application/pdf" as const, data: "JVBERi0xLjQK".repeat(10) } };
  const messages: ModelMessage[] = [
    { role: "user", content: "summarize paper.pdf" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_pdf", name: "Read", input: { file_path: "paper.pdf" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_pdf", content: [document, { type: "text", text: "Read PDF paper.pdf (3 pages, 1.2 KB)." }] }] },
  ];
  const rendered = renderForSummary(messages);
  assert.match(rendered, /\[Tool result \(toolu_pdf\)\]\n\(a PDF document\)\nRead PDF paper\.pdf/);
  assert.doesNotMatch(rendered, /JVBERi0/);
  assert.ok(estimateTokens(messages[2]) > 10_000);
});
