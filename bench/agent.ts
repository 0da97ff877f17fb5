// The agent loop's own cost: from a model reply with a trivial tool call arriving to the next
// model request leaving, against the provider's bare turnaround (one streamed request after
// another, no loop); and the size of the first request's fixed prefix (system + tools).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { estimateTokens, runAgent } from "@harness/agent";
import { createAnthropicProvider, type ModelRequest, type Provider } from "@harness/llm";
import { startFakeAnthropic, type RecordedRequest } from "@harness/test-utils";
import { median, now } from "./lib.ts";

/** Gaps between the end of each reply and the arrival of the request after it. */
function gaps(requests: RecordedRequest[], replyEnds: number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < requests.length; i++) if (replyEnds[i - 1] !== undefined) out.push(requests[i].at - replyEnds[i - 1]);
  return out;
}

export async function measureToolRoundTrip(turns: number) {
  const dir = await mkdtemp(join(tmpdir(), "harness-bench-loop-"));
  const home = join(dir, "home");
  const replyEnds: number[] = [];
  let count = 0;
  const fake = await startFakeAnthropic({
    respond: () => {
      const index = count++;
      const ended = () => (replyEnds[index] = now());
      if (index >= turns) {
        return { textChunks: function* () { yield "done"; ended(); } };
      }
      return {
        textChunks: function* () {
          yield "Reading.";
          ended();
        },
        // A trivial tool: TodoWrite touches no file and no process, so the gap is the loop's own.
        toolUses: [{ name: "TodoWrite", input: { todos: [{ content: "step", status: "in_progress", activeForm: "Doing the step" }] }, chunks: 1 }],
      };
    },
  });
  const sdk = createAnthropicProvider({ apiKey: "bench", baseURL: fake.url });
  // Records the loop's requests so that the baseline can send exactly the same ones.
  const sent: ModelRequest[] = [];
  const provider: Provider = { name: sdk.name, stream: (request) => (sent.push(request), sdk.stream(request)) };
  const run = () =>
    runAgent({
      prompt: "plan it",
      provider,
      model: "claude-sonnet-4-6",
      cwd: dir,
      home,
      managedSettingsPath: join(home, "none.json"),
      permissionMode: "default",
      maxTurns: turns + 2,
      signal: new AbortController().signal,
      emit: () => {},
    });
  await run(); // warm-up
  sent.length = 0;
  fake.requests.length = 0;
  replyEnds.length = 0;
  count = 0;
  const result = await run();
  if (result.stopReason !== "end_turn") throw new Error(`bench run ended with ${result.stopReason}: ${result.errorMessage}`);
  const loop = median(gaps(fake.requests, replyEnds));
  const first = fake.requests[0].body;
  const prefix = { bytes: JSON.stringify(first.system).length + JSON.stringify(first.tools).length, tokens: estimateTokens(JSON.stringify(first.system) + JSON.stringify(first.tools)) };

  // Baseline: the loop's own requests sent again through the same provider, each straight after
  // the previous reply, with no loop in between.
  fake.requests.length = 0;
  replyEnds.length = 0;
  count = 0;
  for (const request of sent.splice(0)) {
    for await (const _ of sdk.stream({ ...request, signal: new AbortController().signal })) {
      // drain
    }
  }
  const bare = median(gaps(fake.requests, replyEnds));
  await fake.close();
  await rm(dir, { recursive: true, force: true });
  return { loopMs: loop, bareMs: bare, prefix };
}
