// The credentials a request to Amazon Bedrock goes with, found as Claude Code finds them: a Bedrock
// API key (AWS_BEARER_TOKEN_BEDROCK), else access keys in the environment, else the keys printed by
// the awsCredentialExport command of the settings, else a profile's (AWS_PROFILE, default
// "default") in the shared credentials and config files: its static keys, else its
// credential_process. When these find none, the settings' awsAuthRefresh command (`aws sso login`)
// runs and they are tried once more. SSO sessions and assumed roles are not followed: a profile that
// needs them is named in the error.
import { readFile } from "node:fs/promises";
import { runCommand, shellCommand } from "./aws-command.ts";
import { type CommandOptions, credentialProcessKeys, exportKeys, forgetKeptCredentials } from "./aws-credential-process.ts";
import { AwsCredentialsError } from "./aws-credentials-error.ts";
import type { AwsCredentials } from "./aws-sigv4.ts";
import { awsFiles } from "./bedrock-settings.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "./header-token.ts";

export { AwsCredentialsError };

type Env = Readonly<Record<string, string | undefined>>;

export type BedrockAuth = { bearer: string } | { keys: AwsCredentials };

/** Claude Code's settings for AWS credentials, each a command run through /bin/sh. Only the user's
 * and the managed settings may name them (a repository must not choose what runs to make them). */
export type AwsCommands = {
  /** Prints `{"Credentials": {"AccessKeyId", "SecretAccessKey", "SessionToken"}}`: used in
   * preference to the AWS files. */
  credentialExport?: string;
  /** Renews what the AWS files lead to (`aws sso login`); its output is shown to the user. */
  authRefresh?: string;
};

/** A sign-in in a browser may take the user a while. */
export const AUTH_REFRESH_TIMEOUT_MS = 5 * 60_000;

/** The credentials `env` gives; rejects with an AwsCredentialsError saying what is missing, or which
 * of them cannot be sent (never its value). */
export async function bedrockAuth(env: Env, commands: AwsCommands = {}, options: CommandOptions = {}): Promise<BedrockAuth> {
  const bearer = env.AWS_BEARER_TOKEN_BEDROCK?.trim();
  if (bearer) return { bearer: sendable(bearer, "AWS_BEARER_TOKEN_BEDROCK") };
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (accessKeyId && secretAccessKey) {
    const sessionToken = env.AWS_SESSION_TOKEN?.trim();
    return {
      keys: {
        accessKeyId: sendable(accessKeyId, "AWS_ACCESS_KEY_ID"),
        secretAccessKey: sendable(secretAccessKey, "AWS_SECRET_ACCESS_KEY"),
        ...(sessionToken && { sessionToken: sendable(sessionToken, "AWS_SESSION_TOKEN") }),
      },
    };
  }
  if (accessKeyId || secretAccessKey) {
    throw new AwsCredentialsError(`${accessKeyId ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY"} is set but ${accessKeyId ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID"} is not: Amazon Bedrock needs both`);
  }
  const refresh = commands.authRefresh?.trim();
  try {
    return { keys: await exportedOrProfileKeys(env, commands, options) };
  } catch (error) {
    if (!(error instanceof AwsCredentialsError) || !refresh) throw error;
    try {
      await refreshBedrockAuth(env, commands);
    } catch (failed) {
      throw new AwsCredentialsError(`${error.message}; ${(failed as Error).message.replace(/^awsAuthRefresh \(.*?\) /s, (named) => `${named}then `)}`);
    }
    return { keys: await exportedOrProfileKeys(env, commands, options) };
  }
}

/** After the model said the keys expired: every kept key is forgotten, and the settings'
 * awsAuthRefresh command runs (its output shown on stderr). Rejects with an AwsCredentialsError
 * when it fails. */
export async function refreshBedrockAuth(env: Env, commands: AwsCommands, timeoutMs = AUTH_REFRESH_TIMEOUT_MS): Promise<void> {
  forgetKeptCredentials();
  const refresh = commands.authRefresh?.trim();
  if (!refresh) return;
  try {
    await runCommand({ argv: shellCommand(refresh), env, timeoutMs, shown: true });
  } catch (error) {
    throw new AwsCredentialsError(`awsAuthRefresh (${refresh}) ${(error as Error).message}`);
  } finally {
    // What the command renewed is read afresh, even where it failed half-way.
    forgetKeptCredentials();
  }
}

async function exportedOrProfileKeys(env: Env, commands: AwsCommands, options: CommandOptions): Promise<AwsCredentials> {
  const exporter = commands.credentialExport?.trim();
  if (exporter) return exportKeys(exporter, env, options);
  return profileKeys(env, options);
}

async function profileKeys(env: Env, options: CommandOptions): Promise<AwsCredentials> {
  const profile = env.AWS_PROFILE?.trim() || "default";
  const files = awsFiles(env);
  const none = `no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or aws_access_key_id and aws_secret_access_key for profile "${profile}" in ${files.credentials}`;
  const credentials = parseIni(await readText(files.credentials))?.get(profile);
  const configured = parseIni(await readText(files.config))?.get(profile === "default" ? "default" : `profile ${profile}`);
  // As the AWS CLI merges them: the credentials file's keys over the config file's.
  const value = (key: string) => credentials?.get(key) ?? configured?.get(key);
  const named = (key: string) => `${key} of profile "${profile}" in ${credentials?.has(key) ? files.credentials : files.config}`;
  const id = value("aws_access_key_id");
  const secret = value("aws_secret_access_key");
  if (id && secret) {
    const token = value("aws_session_token");
    return {
      accessKeyId: sendable(id, named("aws_access_key_id")),
      secretAccessKey: sendable(secret, named("aws_secret_access_key")),
      ...(token && { sessionToken: sendable(token, named("aws_session_token")) }),
    };
  }
  const processLine = value("credential_process");
  if (processLine) return credentialProcessKeys(profile, processLine, credentials?.has("credential_process") ? files.credentials : files.config, env, options);
  const other = ["sso_session", "sso_start_url", "role_arn", "web_identity_token_file"].find((key) => configured?.has(key));
  if (other) {
    throw new AwsCredentialsError(`${none}; profile "${profile}" in ${files.config} gets its keys through ${other}, which harness does not follow: export them (aws configure export-credentials --profile ${profile} --format env), or name a command that prints them in credential_process or in the awsCredentialExport setting`);
  }
  if (credentials) throw new AwsCredentialsError(`${none} (the profile there has ${id ? "no aws_secret_access_key" : "no aws_access_key_id"})`);
  throw new AwsCredentialsError(none);
}

/** `value`, when it can go in a request's headers (signed or as a bearer token); `named` says where
 * it came from. */
function sendable(value: string, named: string): string {
  if (!isHeaderToken(value)) throw new AwsCredentialsError(`${named} ${NOT_A_HEADER_TOKEN}`);
  return value;
}

/** Credentials handed over rather than found (a server's, per run), checked as found ones are. */
export function checkedAuth(auth: BedrockAuth): BedrockAuth {
  const what = "the AWS credentials for Amazon Bedrock handed over for this run";
  if ("bearer" in auth) sendable(auth.bearer, `${what} (a Bedrock API key)`);
  else for (const value of [auth.keys.accessKeyId, auth.keys.secretAccessKey, auth.keys.sessionToken ?? "-"]) sendable(value, what);
  return auth;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new AwsCredentialsError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** Sections of an INI file (the AWS files' form), their keys lowercased; undefined for no file. */
function parseIni(text: string | undefined): Map<string, Map<string, string>> | undefined {
  if (text === undefined) return undefined;
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (header) {
      current = sections.get(header[1]) ?? new Map();
      sections.set(header[1], current);
      continue;
    }
    const eq = line.indexOf("=");
    if (current && eq > 0) current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return sections;
}
