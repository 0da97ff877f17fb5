// An in-process Provider that plays scripted replies, for tests of the loop and of anything built on
// it. It honours the request's signal like a real provider: the stream ends with stopReason
// "aborted" and the partial message.
import type { ContentBlock, ModelErrorInfo, ModelEvent, ModelMessage, ModelRequest, Provider, StopReason } from "@harness/llm";
import type { Usage } from "@harness/protocol";

export type ScriptedToolCall = { id?: string; name: string; input?: Record<string, unknown> };

export type ScriptedTurn = {
  /** Streamed as text deltas, one per array element. */
  text?: string | string[];
  toolCalls?: ScriptedToolCall[];
  /** Ends the reply with stopReason "error" and this message, after streaming the rest. */
  error?: string;
  /** With `error`: the done event's kind of failure. */
  errorInfo?: ModelErrorInfo;
  /** After streaming the rest, waits for the request's signal instead of finishing. */
  hang?: boolean;
  usage?: Usage;
  stopReason?: StopReason;
  /** The done event's `refusal` (with stopReason "refusal"). */
  refusal?: string;
  /** The done event's `abandonedUsage` (attempts given up on before this reply). */
  abandonedUsage?: Usage;
};

/** A turn, or a function that builds one from the request it answers. */
export type ScriptedStep = ScriptedTurn | ((request: ModelRequest) => ScriptedTurn);

export type ScriptedProvider = Provider & {
  /** Every request received, with a copy of its messages as they were at the time. */
  readonly requests: ModelRequest[];
};

export function scriptedProvider(steps: ScriptedStep[], options: { name?: string } = {}): ScriptedProvider {
  const requests: ModelRequest[] = [];
  let next = 0;
  let generatedIds = 0;
  return {
    name: options.name ?? "scripted",
    requests,
    stream(request) {
      requests.push({ ...request, messages: request.messages.slice() });
      const step = steps[next++];
      const turn: ScriptedTurn =
        step === undefined
          ? { error: `The scripted provider has no reply number ${next}: only ${steps.length} were scripted.` }
          : typeof step === "function"
            ? step(request)
            : step;
      return play(turn, request.signal, () => `toolu_scripted_${++generatedIds}`);
    },
  };
}

async function* play(turn: ScriptedTurn, signal: AbortSignal | undefined, newId: () => string): AsyncGenerator<ModelEvent> {
  const content: ContentBlock[] = [];
  const usage = turn.usage ?? { inputTokens: 10, outputTokens: 5 };
  const done = (stopReason: StopReason, errorMessage?: string): ModelEvent => {
    const message: ModelMessage = { role: "assistant", content };
    return errorMessage === undefined ? { type: "done", stopReason, message, usage } : { type: "done", stopReason, message, usage, errorMessage };
  };

  const chunks = turn.text === undefined ? [] : typeof turn.text === "string" ? [turn.text] : turn.text;
  let text = "";
  for (const chunk of chunks) {
    if (signal?.aborted) break;
    text += chunk;
    yield { type: "text-delta", text: chunk };
  }
  if (text) content.push({ type: "text", text });
  for (const call of turn.toolCalls ?? []) {
    if (signal?.aborted) break;
    const id = call.id ?? newId();
    const input = call.input ?? {};
    yield { type: "tool-call-start", id, name: call.name };
    yield { type: "tool-call-delta", id, partialJson: JSON.stringify(input) };
    content.push({ type: "tool_use", id, name: call.name, input });
    yield { type: "tool-call-end", id, name: call.name, input };
  }
  if (turn.hang && signal && !signal.aborted) {
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  }
  if (signal?.aborted) {
    yield done("aborted");
    return;
  }
  if (turn.error !== undefined) {
    const failed = done("error", turn.error);
    if (turn.errorInfo !== undefined && failed.type === "done") failed.error = turn.errorInfo;
    yield failed;
    return;
  }
  const last = done(turn.stopReason ?? (turn.toolCalls?.length ? "tool_use" : "end_turn"));
  if (turn.refusal !== undefined && last.type === "done") last.refusal = turn.refusal;
  if (turn.abandonedUsage !== undefined && last.type === "done") last.abandonedUsage = turn.abandonedUsage;
  yield last;
}
