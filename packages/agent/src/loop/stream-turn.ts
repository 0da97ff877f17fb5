import { formatDuration, type ContentBlock, type ModelErrorInfo, type ModelEvent, type ModelMessage, type ModelRequest, type Provider, type StopReason } from "@harness/llm";
import type { AgentEvent, ModelRetry, Usage } from "@harness/protocol";
import { cleanAssistantMessage } from "./transcript.ts";
import { emptyUsage } from "./usage.ts";

export type TurnOutcome = {
  stopReason: StopReason;
  /** The assistant message for the transcript, without empty parts; undefined when the model
   * produced nothing. */
  message: ModelMessage | undefined;
  usage: Usage;
  errorMessage?: string;
  /** The kind of failure that ended it, when the provider said. */
  error?: ModelErrorInfo;
  /** Why the model declined to answer, when the API said (stop reason refusal). */
  refusal?: string;
  /** What attempts given up on before this reply used (see the provider's done event). */
  abandonedUsage?: Usage;
  /** Tool calls whose input was not a JSON object, by id: answered with this, never run. */
  inputErrors?: Map<string, string>;
};

/** One model call. Forwards text and thinking deltas as they arrive and announces each tool call once its input
 * is complete (adding its id to `started`); `observe` sees every event of the stream first. Never throws: a provider that breaks its contract
 * (throws, or ends without `done`) yields an "error" outcome built from what was streamed. */
export async function streamTurn(
  provider: Provider,
  request: ModelRequest,
  emit: (event: AgentEvent) => void,
  started: Set<string>,
  observe?: (event: ModelEvent) => void,
): Promise<TurnOutcome> {
  let text = "";
  /** The thinking streamed by the provider's attempt under way (a retry starts another). */
  let thinking = "";
  const toolUses: ContentBlock[] = [];
  let failure: string | undefined;
  let inputErrors: Map<string, string> | undefined;
  try {
    for await (const event of provider.stream(request)) {
      observe?.(event);
      switch (event.type) {
        case "text-delta":
          text += event.text;
          emit({ type: "assistant.delta", text: event.text });
          break;
        case "text-withdrawn":
          // Reasoning that looked like reply text until its closing tag: it comes again as thinking.
          if (!event.text || !text.endsWith(event.text)) break;
          text = text.slice(0, -event.text.length);
          emit({ type: "assistant.retracted", text: event.text });
          break;
        case "thinking-delta":
          if (!event.text) break;
          thinking += event.text;
          emit({ type: "assistant.thinking", text: event.text });
          break;
        case "retry":
          // The provider asks again: the thinking of the attempt given up on is not the reply's.
          if (thinking) emit({ type: "assistant.retracted", text: thinking, thinking: true });
          thinking = "";
          // Otherwise a rate limit's wait (up to a minute per attempt) is silence.
          emit({ type: "notice", level: "warning", message: `The model request failed (${event.reason}); trying again in ${formatDuration(event.delayMs)} (attempt ${event.attempt + 1}).`, retry: retryOf(event) });
          break;
        case "warning":
          emit({ type: "notice", level: "warning", message: event.message });
          break;
        case "tool-call-end":
          if (event.inputError !== undefined) (inputErrors ??= new Map()).set(event.id, event.inputError);
          toolUses.push({ type: "tool_use", id: event.id, name: event.name, input: event.input });
          started.add(event.id);
          emit({ type: "tool.started", toolName: event.name, toolUseId: event.id, input: event.input });
          break;
        case "done":
          return {
            stopReason: event.stopReason,
            message: cleanAssistantMessage(event.message),
            usage: event.usage,
            ...(event.errorMessage !== undefined && { errorMessage: event.errorMessage }),
            ...(event.error !== undefined && { error: event.error }),
            ...(event.refusal !== undefined && { refusal: event.refusal }),
            ...(event.abandonedUsage !== undefined && { abandonedUsage: event.abandonedUsage }),
            ...(inputErrors && { inputErrors }),
          };
      }
    }
    failure = `The ${provider.name} model stream ended without a final event.`;
  } catch (error) {
    failure = `The ${provider.name} model stream failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const aborted = request.signal?.aborted === true;
  const content: ContentBlock[] = text ? [{ type: "text", text }, ...toolUses] : toolUses;
  return {
    stopReason: aborted ? "aborted" : "error",
    message: content.length ? { role: "assistant", content } : undefined,
    usage: emptyUsage(),
    ...(!aborted && { errorMessage: failure }),
  };
}

/** The retry in fields (the notice's `retry`): the status only from a code that is an HTTP status. */
export function retryOf(event: Extract<ModelEvent, { type: "retry" }>): ModelRetry {
  const status = httpStatusOf(event.code);
  return {
    attempt: event.attempt,
    ...(event.maxAttempts !== undefined && { maxAttempts: event.maxAttempts }),
    ...(status !== undefined && { status }),
    error: event.reason,
    delayMs: event.delayMs,
  };
}

/** A failure's code as an HTTP status, when it is one ("529"; not a stream error's type). */
export function httpStatusOf(code: string | undefined): number | undefined {
  return code !== undefined && /^[1-5]\d\d$/.test(code) ? Number(code) : undefined;
}
