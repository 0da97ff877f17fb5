// `apiKeyHelper`, as Claude Code has it: a command (run with /bin/sh) whose output is the key sent
// to Anthropic's API, for keys that rotate or come from a vault. It is used when no key or token
// is set otherwise (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, the server's key for the run), and
// only from the user's or the managed settings: a repository's settings must not decide what runs
// to produce the credentials, nor which credentials are sent. The key is kept for
// CLAUDE_CODE_API_KEY_HELPER_TTL_MS (default 5 minutes), then the command runs again.
import { hasAnthropicCredentials, servedByAnthropic } from "@harness/llm";
import { readConfigJson } from "../../config/files.ts";
import { userConfigDir } from "../../config/user-config-dir.ts";
import { wholeSetting } from "../../env/number.ts";
import { runCommand, shellCommand } from "@harness/llm/credential-command";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "../../settings/managed-path.ts";
import type { RunAgentOptions } from "../../types.ts";

const DEFAULT_TTL_MS = 5 * 60_000;
/** A helper that has not answered by then is given up on, with every process it started. */
export const HELPER_TIMEOUT_MS = 30_000;
const MAX_KEY_CHARS = 16 * 1024;

type Env = Readonly<Record<string, string | undefined>>;
const kept = new Map<string, { key: string; until: number }>();

/** The helper of the user's or managed settings files (the managed one wins), read from the files
 * themselves: a host that checks for credentials before a run starts asks this. */
export async function trustedApiKeyHelper(where: { home: string; managedPath?: string }): Promise<string | undefined> {
  let found: string | undefined;
  for (const file of [`${userConfigDir(where.home)}/settings.json`, where.managedPath ?? DEFAULT_MANAGED_SETTINGS_PATH]) {
    const read = await readConfigJson(file);
    if (read.kind !== "ok" || typeof read.value !== "object" || read.value === null) continue;
    const helper = (read.value as { apiKeyHelper?: unknown }).apiKeyHelper;
    if (typeof helper === "string" && helper.trim() !== "") found = helper;
  }
  return found;
}

/** Whether the user's or managed settings files, or the run's own settings (`flag`, Claude Code's
 * --settings), give credentials for Anthropic's API: an apiKeyHelper, or ANTHROPIC_API_KEY,
 * ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_USE_VERTEX or CLAUDE_CODE_USE_BEDROCK in their env (which the run takes as its own). A host that checks for
 * credentials before a run starts asks this. */
export async function trustedAnthropicCredentials(where: { home: string; managedPath?: string; flag?: unknown }): Promise<boolean> {
  if (await trustedApiKeyHelper(where)) return true;
  const settings: unknown[] = [where.flag];
  for (const file of [`${userConfigDir(where.home)}/settings.json`, where.managedPath ?? DEFAULT_MANAGED_SETTINGS_PATH]) {
    const read = await readConfigJson(file);
    if (read.kind === "ok") settings.push(read.value);
  }
  return settings.some((value) => {
    if (typeof value !== "object" || value === null) return false;
    const { apiKeyHelper, env } = value as { apiKeyHelper?: unknown; env?: unknown };
    if (typeof apiKeyHelper === "string" && apiKeyHelper.trim() !== "") return true;
    if (typeof env !== "object" || env === null) return false;
    const strings = Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string");
    return hasAnthropicCredentials(undefined, Object.fromEntries(strings));
  });
}

/** `options` with the helper's key for Anthropic's API, when the run's model is Anthropic's, the
 * settings name a helper and nothing else gives credentials; `options` itself otherwise. A helper
 * that fails makes an error that says what it did. */
export async function withHelperKey(
  options: RunAgentOptions,
  helper: string | undefined,
  model: string,
  cwd: string,
  timeoutMs = HELPER_TIMEOUT_MS,
): Promise<{ ok: true; options: RunAgentOptions } | { ok: false; error: string }> {
  const env = options.env ?? process.env;
  const given = options.providerOptions?.anthropic;
  if (helper === undefined || options.provider || !servedByAnthropic(model) || hasAnthropicCredentials(given?.apiKey || given?.authToken, env)) return { ok: true, options };
  const ttl = wholeSetting(env, "CLAUDE_CODE_API_KEY_HELPER_TTL_MS", "milliseconds", 0);
  const now = Date.now();
  let entry = kept.get(helper);
  if (!entry || entry.until <= now) {
    const ran = await runHelper(helper, env, cwd, timeoutMs);
    if (!ran.ok) return ran;
    entry = { key: ran.key, until: now + (ttl.value ?? DEFAULT_TTL_MS) };
    kept.set(helper, entry);
  }
  const anthropic = { ...given, apiKey: entry.key };
  return { ok: true, options: { ...options, providerOptions: { ...options.providerOptions, anthropic } } };
}

/** Run as the credential commands are (a process group of its own, so that the time limit also
 * stops what the helper starts, a vault client waiting for a login, say), quoting its last word on
 * stderr when it fails. */
async function runHelper(command: string, env: Env, cwd: string, timeoutMs: number): Promise<{ ok: true; key: string } | { ok: false; error: string }> {
  const fail = (why: string) => ({ ok: false as const, error: `apiKeyHelper (${command}) ${why}; set ANTHROPIC_API_KEY or mend the helper in your settings` });
  let out: string;
  try {
    out = await runCommand({ argv: shellCommand(command), env, cwd, timeoutMs, gives: "key", stderrLine: "last" });
  } catch (error) {
    return fail((error as Error).message);
  }
  const key = out.trim();
  if (key === "") return fail("printed no key");
  if (key.length > MAX_KEY_CHARS || /\s/.test(key)) return fail("printed something that is not a key (more than one word, or too long)");
  return { ok: true, key };
}
