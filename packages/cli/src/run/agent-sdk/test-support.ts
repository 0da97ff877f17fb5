// Helpers shared by the tests that drive `harness run` through the Claude Agent SDK, as the SDK
// drives Claude Code's executable.
import { join } from "node:path";
import type { Options, SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { root } from "../../test-support.ts";

/** The executable the SDK starts in place of Claude Code's. */
export const SDK_EXECUTABLE = join(root, "packages/cli/bin/harness-run");
export const SDK_MODEL = "claude-sonnet-4-6";

/** query() options for a run in `dir` (also its HOME) against the fake model at `fakeUrl`, with
 * no retry waits; stderr is dropped unless `more` takes it. */
export function sdkOptions(dir: string, fakeUrl: string, more: Record<string, unknown> = {}): Options & { env: Record<string, string | undefined> } {
  return {
    pathToClaudeCodeExecutable: SDK_EXECUTABLE,
    cwd: dir,
    model: SDK_MODEL,
    env: { ...process.env, HOME: dir, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fakeUrl, NO_COLOR: "1", HARNESS_MODEL_RETRIES: "0", HARNESS_RETRY_BASE_MS: "1" },
    stderr: () => {},
    ...more,
  } as Options & { env: Record<string, string | undefined> };
}

/** Every message of a query, once it has ended. */
export async function allMessages(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const seen: SDKMessage[] = [];
  for await (const message of messages) seen.push(message);
  return seen;
}
