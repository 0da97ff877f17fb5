// Claude Code's awsCredentialExport and awsAuthRefresh settings: commands that make the AWS
// credentials for Amazon Bedrock (@harness/llm/aws-credentials runs them, through /bin/sh).
// As with apiKeyHelper, only the user's and the managed settings (and the run's own, --settings) may
// name them: a repository's settings must not decide what runs to make the credentials, nor which
// credentials are sent.
import type { AwsCommands } from "@harness/llm";
import { readConfigJson } from "../../config/files.ts";
import { userConfigDir } from "../../config/user-config-dir.ts";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "../../settings/managed-path.ts";
import { comesWithRepository, type SettingsSource } from "../../settings/types.ts";
import type { RunAgentOptions } from "../../types.ts";
import type { NoticeSink } from "../resources.ts";

/** Each setting by the field of AwsCommands it fills. */
const SETTINGS = { awsCredentialExport: "credentialExport", awsAuthRefresh: "authRefresh" } as const;

/** The commands of the settings, the last source's winning; a project's are said not to count. */
export function awsCommandsOf(sources: readonly SettingsSource[], notice: NoticeSink): AwsCommands {
  const commands: AwsCommands = {};
  for (const source of sources) {
    for (const [key, field] of Object.entries(SETTINGS) as [keyof typeof SETTINGS, keyof AwsCommands][]) {
      const value = source.settings[key];
      if (value === undefined || value.trim() === "") continue;
      if (comesWithRepository(source.scope)) notice("warning", `${source.path} (${key}): a project's settings cannot say how the AWS credentials are made; put ${key} in ~/.claude/settings.json.`);
      else commands[field] = value;
    }
  }
  return commands;
}

/** `options` with `commands` for the provider, when it finds Bedrock's credentials itself: not when
 * the run was given its provider or credentials (a server's, which found them with its own). */
export function withAwsCommands(options: RunAgentOptions, commands: AwsCommands | undefined): RunAgentOptions {
  const given = options.providerOptions?.anthropic;
  if (commands === undefined || Object.keys(commands).length === 0 || options.provider || given?.bedrockAuth) return options;
  return { ...options, providerOptions: { ...options.providerOptions, anthropic: { ...given, awsCommands: commands } } };
}

/** The commands of the user's and managed settings files (the managed one wins), read from the files
 * themselves: a server reads them to find the credentials it hands to its runs. A value that is no
 * command is left out (the run's own reading of the settings names it). */
export async function trustedAwsCommands(where: { home: string; managedPath?: string }): Promise<AwsCommands> {
  const commands: AwsCommands = {};
  for (const file of [`${userConfigDir(where.home)}/settings.json`, where.managedPath ?? DEFAULT_MANAGED_SETTINGS_PATH]) {
    const read = await readConfigJson(file);
    if (read.kind !== "ok" || typeof read.value !== "object" || read.value === null) continue;
    for (const [key, field] of Object.entries(SETTINGS) as [keyof typeof SETTINGS, keyof AwsCommands][]) {
      const value = (read.value as Record<string, unknown>)[key];
      if (typeof value === "string" && value.trim() !== "") commands[field] = value;
    }
  }
  return commands;
}
