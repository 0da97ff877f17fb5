// The credentials a request to Amazon Bedrock goes with, found as Claude Code finds them: a Bedrock
// API key (AWS_BEARER_TOKEN_BEDROCK), else access keys in the environment, else its web identity
// (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, traded at STS as the AWS SDKs do), else the keys printed by
// the awsCredentialExport command of the settings, else a profile's (AWS_PROFILE, default
// "default") in the shared credentials and config files: an assumed role, its static keys, its
// credential_process or its SSO sign-in (profile.ts). When these find none, the settings'
// awsAuthRefresh command (`aws sso login`) runs and they are tried once more.
import { runCommand, shellCommand } from "../credential-command.ts";
import { type CommandOptions, exportKeys, forgetKeptCredentials } from "./credential-process.ts";
import { AwsCredentialsError } from "./credentials-error.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { profileKeys } from "./profile.ts";
import { environmentWebIdentity, webIdentityKeys } from "./web-identity.ts";
import { isHeaderToken, NOT_A_HEADER_TOKEN } from "../header-token.ts";

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
  const identity = environmentWebIdentity(env);
  if (identity) return { keys: await webIdentityKeys(identity, env, options) };
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
