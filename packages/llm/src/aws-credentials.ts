// The credentials a request to Amazon Bedrock goes with, found as Claude Code finds them: a Bedrock
// API key (AWS_BEARER_TOKEN_BEDROCK), else access keys in the environment, else a profile's static
// keys in the shared credentials file (AWS_PROFILE, default "default"). SSO, credential_process and
// assumed roles are not followed: a profile that needs them is named in the error.
import { readFile } from "node:fs/promises";
import type { AwsCredentials } from "./aws-sigv4.ts";
import { awsFiles } from "./bedrock-settings.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "./header-token.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type BedrockAuth = { bearer: string } | { keys: AwsCredentials };

/** No credentials for Bedrock could be found; it fails the same way again. */
export class AwsCredentialsError extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = "AwsCredentialsError";
  }
}

/** The credentials `env` gives; rejects with an AwsCredentialsError saying what is missing, or which
 * of them cannot be sent (never its value). */
export async function bedrockAuth(env: Env): Promise<BedrockAuth> {
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
  return { keys: await profileKeys(env) };
}

async function profileKeys(env: Env): Promise<AwsCredentials> {
  const profile = env.AWS_PROFILE?.trim() || "default";
  const files = awsFiles(env);
  const none = `no AWS credentials for Amazon Bedrock: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or aws_access_key_id and aws_secret_access_key for profile "${profile}" in ${files.credentials}`;
  const credentials = parseIni(await readText(files.credentials))?.get(profile);
  const id = credentials?.get("aws_access_key_id");
  const secret = credentials?.get("aws_secret_access_key");
  if (id && secret) {
    const token = credentials?.get("aws_session_token");
    const named = (key: string) => `${key} of profile "${profile}" in ${files.credentials}`;
    return {
      accessKeyId: sendable(id, named("aws_access_key_id")),
      secretAccessKey: sendable(secret, named("aws_secret_access_key")),
      ...(token && { sessionToken: sendable(token, named("aws_session_token")) }),
    };
  }
  const config = parseIni(await readText(files.config));
  const configured = config?.get(profile === "default" ? "default" : `profile ${profile}`);
  const other = ["sso_session", "sso_start_url", "credential_process", "role_arn", "web_identity_token_file"].find((key) => configured?.has(key));
  if (other) {
    throw new AwsCredentialsError(`${none}; profile "${profile}" in ${files.config} gets its keys through ${other}, which harness does not follow: export them (aws configure export-credentials --profile ${profile} --format env)`);
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
