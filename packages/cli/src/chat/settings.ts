// The session's settings a chat's flags name (--model, --permission-mode…): sent in one configure
// before the first prompt, and said in a line once the session holds them.
import type { HarnessClient } from "@harness/client";
import type { HarnessConfig, HarnessState } from "@harness/protocol";
import type { ChatCommand } from "./chat.ts";
import { oneLine } from "../display/render.ts";

/** Sends `config` and resolves with the first state that holds all of it; rejects with the
 * server's refusal, a closed connection, or after `timeoutMs`. */
export function applySettings(client: HarnessClient, config: HarnessConfig, timeoutMs: number): Promise<HarnessState> {
  const holds = (state: HarnessState) => Object.entries(config).every(([key, value]) => state.config?.[key as keyof HarnessConfig] === value);
  return new Promise((resolve, reject) => {
    const off = client.on("error", (error) => error.code !== "reconnect_failed" && reject(new Error(error.message)));
    client.send({ type: "configure", config });
    client.waitFor(holds, timeoutMs).then(resolve, reject).finally(off);
  });
}

/** The flags that named the chat's settings, as a refusal names them. */
export function settingFlags(command: ChatCommand): string {
  const names: Record<string, string> = { model: "--model", permissionMode: "--permission-mode", systemPrompt: "--system-prompt", effort: "--effort", maxTurns: "--max-turns" };
  const flags = Object.keys(command.config ?? {}).map((key) => names[key] ?? key);
  if (command.systemPromptFile !== undefined) flags.push("--system-prompt-file");
  return flags.join(", ");
}

/** A session's settings in a line: what the next runs go with. */
export function describeSettings(config: HarnessConfig, promptFile: string | undefined): string {
  const parts: string[] = [];
  if (config.model) parts.push(`model ${config.model}`);
  if (config.permissionMode) parts.push(`permission mode ${config.permissionMode}`);
  if (config.maxTurns) parts.push(`max turns ${config.maxTurns}`);
  if (config.effort) parts.push(`effort ${config.effort}`);
  if (promptFile !== undefined) parts.push(`system prompt from ${promptFile}`);
  else if (config.systemPrompt) parts.push(`system prompt "${oneLine(config.systemPrompt, 40)}"`);
  return parts.join(", ") || "the server's defaults";
}
