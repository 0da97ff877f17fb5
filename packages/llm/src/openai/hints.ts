// What to do about the failures of OpenAI-compatible servers that their own words leave a user
// guessing at: each server phrases them its own way (OpenAI, vLLM, llama.cpp, LM Studio, Ollama,
// DeepSeek, Groq, OpenRouter), so they are recognised by what they say.

const CONTEXT_TOO_LONG = [
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /exceeds? the (available )?context (size|window|length)/i,
  /context (size|window) (has been |was )?exceeded/i,
  /reduce the length of the (messages|prompt)/i,
  /loaded with context length of/i,
  /prompt is too long/i,
  /tokens \+ `?max_new_tokens`? must be <=/i,
];

const NO_TOOLS = [/does not support tools/i, /tools? (calling |use )?(is|are) not supported/i, /does not support (function|tool) call/i, /tool choice requires/i];

const VLLM_TOOL_FLAGS = /--enable-auto-tool-choice/;

/** A sentence to put after the server's message, or undefined. `text`: the server's message with
 * its error code and type; `model`: the model asked for, as the server knows it. */
export function failureHint(status: number | undefined, text: string, model: string): string | undefined {
  if (status === 404 && /try pulling it/i.test(text)) return `run \`ollama pull ${model}\` where Ollama runs`;
  // The key comes from OPENAI_API_KEY (or the program's apiKey): a server that refuses it says only "invalid key".
  if (status === 401) return "the server did not take the API key: set OPENAI_API_KEY to a key it accepts (for a server of your own that needs none, OPENAI_BASE_URL alone)";
  if (status !== undefined && status !== 400 && status !== 413 && status !== 422) return undefined;
  if (CONTEXT_TOO_LONG.some((pattern) => pattern.test(text)) || /exceed_context_size/i.test(text)) {
    return "the conversation does not fit the model's context window: /compact it or start a new one, and set HARNESS_CONTEXT_WINDOW to the model's window (in tokens) so that conversations are compacted before they outgrow it";
  }
  if (NO_TOOLS.some((pattern) => pattern.test(text))) {
    const remedy = VLLM_TOOL_FLAGS.test(text) ? "start vLLM with --enable-auto-tool-choice and the --tool-call-parser of this model" : "choose a model that supports tool calling";
    return `the model "${model}" cannot be given tools, which the agent needs: ${remedy}`;
  }
  return undefined;
}
