// Credentials that a command prints: a profile's `credential_process` (the AWS CLI's format,
// `{"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken"?, "Expiration"?}`) and the
// `awsCredentialExport` command of Claude Code's settings (the shape `aws sts` prints,
// `{"Credentials": {"AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"?}}`). What a
// command printed is kept until a minute before it expires (keys with no Expiration until they are
// forgotten: a refresh, the model saying they expired), so that requests do not wait on it each time.
import { type CommandRun, runCommand, shellCommand, splitCommand } from "../credential-command.ts";
import { AwsCredentialsError } from "./credentials-error.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "../header-token.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type ExpiringCredentials = { keys: AwsCredentials; expiresAt?: number };

/** How a lookup runs its commands; the defaults are the real clock and CREDENTIAL_TIMEOUT_MS. */
export type CommandOptions = { now?: () => number; timeoutMs?: number };

/** A credential command that has not printed its keys by then is given up on. */
export const CREDENTIAL_TIMEOUT_MS = 30_000;
/** Keys are used until this long before they expire, so that none expires on the way. */
const EARLY_MS = 60_000;

const kept = new Map<string, { keys: Promise<AwsCredentials>; until: number }>();

/** The keys kept under `key`, else those `get` gives (kept then until a minute before they
 * expire). Callers at once share one `get`; a failure is not kept. */
export async function keptCredentials(key: string, now: () => number, get: () => Promise<ExpiringCredentials>): Promise<AwsCredentials> {
  const entry = kept.get(key);
  if (entry && entry.until > now()) return entry.keys;
  const fresh = { keys: get().then((got) => {
    fresh.until = got.expiresAt === undefined ? Infinity : got.expiresAt - EARLY_MS;
    return got.keys;
  }), until: Infinity };
  kept.set(key, fresh);
  fresh.keys.catch(() => {
    if (kept.get(key) === fresh) kept.delete(key);
  });
  return fresh.keys;
}

/** Every kept key is dropped: the next lookup runs its command again. */
export function forgetKeptCredentials(): void {
  kept.clear();
}

/** The keys of profile `profile`'s credential_process `line` (`where`: the file it stands in). */
export function credentialProcessKeys(profile: string, line: string, where: string, env: Env, options: CommandOptions = {}): Promise<AwsCredentials> {
  const source = `credential_process of profile "${profile}" in ${where}`;
  const now = options.now ?? Date.now;
  return keptCredentials(`process\0${where}\0${profile}\0${line}`, now, async () => {
    let argv: string[];
    try {
      argv = splitCommand(line);
    } catch (error) {
      throw new AwsCredentialsError(`${source} cannot be split into words: ${(error as Error).message}`);
    }
    if (argv.length === 0) throw new AwsCredentialsError(`${source} is empty`);
    return processCredentials(await printed(source, { argv, env, timeoutMs: options.timeoutMs ?? CREDENTIAL_TIMEOUT_MS }), source, now());
  });
}

/** The keys the awsCredentialExport command of the settings prints. */
export function exportKeys(command: string, env: Env, options: CommandOptions = {}): Promise<AwsCredentials> {
  const source = `awsCredentialExport (${command})`;
  const now = options.now ?? Date.now;
  return keptCredentials(`export\0${command}`, now, async () => exportedCredentials(await printed(source, { argv: shellCommand(command), env, timeoutMs: options.timeoutMs ?? CREDENTIAL_TIMEOUT_MS }), source, now()));
}

async function printed(source: string, run: CommandRun): Promise<string> {
  try {
    return await runCommand(run);
  } catch (error) {
    throw new AwsCredentialsError(`${source} ${(error as Error).message}`);
  }
}

/** Pure: the keys of a credential_process's output; `source` names the process in errors. */
export function processCredentials(text: string, source: string, now: number): ExpiringCredentials {
  const json = jsonObject(text, source);
  const format = "the AWS CLI's credential process format is Version 1";
  if (json.Version === undefined) throw new AwsCredentialsError(`${source} printed no Version: ${format}`);
  if (json.Version !== 1) throw new AwsCredentialsError(`${source} printed Version ${JSON.stringify(json.Version)}: ${format}`);
  return credentialsOf(json, source, "", now);
}

/** Pure: the keys of an awsCredentialExport command's output. */
export function exportedCredentials(text: string, source: string, now: number): ExpiringCredentials {
  const { Credentials: credentials } = jsonObject(text, source);
  if (typeof credentials !== "object" || credentials === null || Array.isArray(credentials)) {
    throw new AwsCredentialsError(`${source} printed no Credentials object: it must print {"Credentials": {"AccessKeyId", "SecretAccessKey", "SessionToken"}}`);
  }
  return credentialsOf(credentials as Record<string, unknown>, source, "Credentials.", now);
}

function jsonObject(text: string, source: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The output is not repeated: it may hold a key.
    throw new AwsCredentialsError(`${source} printed something that is not JSON`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new AwsCredentialsError(`${source} printed JSON that is not an object`);
  return json as Record<string, unknown>;
}

function credentialsOf(json: Record<string, unknown>, source: string, prefix: string, now: number): ExpiringCredentials {
  const field = (name: string, required: boolean): string | undefined => {
    const value = json[name];
    if (value === undefined || value === null || value === "") {
      if (required) throw new AwsCredentialsError(`${source} printed no ${prefix}${name}`);
      return undefined;
    }
    if (typeof value !== "string") throw new AwsCredentialsError(`${source} printed ${article(name)} ${prefix}${name} that is not a string`);
    if (name !== "Expiration" && !isHeaderToken(value)) throw new AwsCredentialsError(`${source} printed ${article(name)} ${prefix}${name} that ${NOT_A_HEADER_TOKEN}`);
    return value;
  };
  const accessKeyId = field("AccessKeyId", true) as string;
  const secretAccessKey = field("SecretAccessKey", true) as string;
  const sessionToken = field("SessionToken", false);
  const expiration = field("Expiration", false);
  const keys = { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
  if (expiration === undefined) return { keys };
  const expiresAt = /^\d{4}-\d\d-\d\dT/.test(expiration) ? Date.parse(expiration) : NaN;
  if (Number.isNaN(expiresAt)) throw new AwsCredentialsError(`${source} printed ${article("Expiration")} ${prefix}Expiration that is not an ISO 8601 time: ${JSON.stringify(expiration)}`);
  if (expiresAt <= now) throw new AwsCredentialsError(`${source} printed keys that expired at ${expiration}`);
  return { keys, expiresAt };
}

function article(name: string): string {
  return /^[AEIOU]/.test(name) ? "an" : "a";
}
