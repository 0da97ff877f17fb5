// A chat of its own on the project (what `harness` alone opens) whose runs would all fail for want
// of an Anthropic key says so as it opens, as Claude Code asks for a login before the first prompt,
// instead of after a prompt was typed and sent. The model, the key and the settings are found as a
// run here finds them (as `harness doctor` does); an apiKeyHelper or a key in the settings' env counts.
import { trustedAnthropicCredentials } from "@harness/agent/api-key-helper";
import { pickModel } from "@harness/agent/model";
import type { RunAgentOptions } from "@harness/agent";
import { routeModel } from "@harness/llm";
import { hasAnthropicCredentials, MISSING_ANTHROPIC_KEY } from "@harness/llm/model-prefix";
import { doctorContext } from "../doctor/context.ts";
import type { CliIO } from "../cli.ts";

/** The line to show, or undefined when runs have credentials, or need none (another provider's
 * model), or the settings cannot be read (the run says what is wrong with them). `model`: --model. */
export async function missingKeyNote(project: string, io: CliIO, model?: string): Promise<string | undefined> {
  try {
    const ctx = await doctorContext({ cwd: project }, io);
    const options = { prompt: "", cwd: ctx.cwd, env: ctx.env, ...(model !== undefined && { model }) } as RunAgentOptions;
    const pick = pickModel(options, ctx.loaded.settings, ctx.loaded.availableModels);
    if (!pick.ok) return undefined;
    const route = routeModel(pick.model, ctx.env);
    if (!route.ok || route.prefix !== "anthropic" || hasAnthropicCredentials(undefined, ctx.env)) return undefined;
    if (await trustedAnthropicCredentials({ home: ctx.home })) return undefined;
    return `${MISSING_ANTHROPIC_KEY} (this chat's runs fail without it: leave with Ctrl+D, export it, and start harness again)`;
  } catch {
    return undefined;
  }
}
