// The model credentials the server holds, which runners never find in their environment (a
// session's commands run there): they travel with each query instead. Anthropic and OpenAI keys as
// they are; Amazon Bedrock's as the server finds them (its environment, else the awsCredentialExport
// command of its user's or managed settings, else a profile's keys in the AWS files, what its
// credential_process prints, its SSO sign-in or its assumed role, with awsAuthRefresh run when there
// are none; or a web identity's token, traded at STS): the server runs these commands, reads the
// token files and asks AWS, never a runner, whose session's commands must not reach them; Vertex AI's as an access token the server mints from its Google credentials,
// which stay with it (a credentials file and the subject token file an external account names, or
// the metadata server).
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { trustedAwsCommands } from "@harness/agent/aws-commands";
import { AwsCredentialsError, bedrockAuth } from "@harness/llm/aws-credentials";
import { webIdentityTokenFiles } from "@harness/llm/aws-profile";
import { awsFiles, bedrockSettings, ssoCacheDir } from "@harness/llm/bedrock-settings";
import { googleAccessToken } from "@harness/llm/google-token";
import { credentialsFile, googleCredentialFiles, vertexSettings } from "@harness/llm/vertex-settings";
import type { RunnerQuery } from "@harness/protocol";

type Env = Readonly<Record<string, string | undefined>>;

export type QueryCredentials = Partial<
  Pick<RunnerQuery, "anthropicApiKey" | "anthropicAuthToken" | "openaiApiKey" | "awsAccessKeyId" | "awsSecretAccessKey" | "awsSessionToken" | "awsBearerTokenBedrock" | "googleAccessToken" | "googleCredentialsFile">
>;

/** Variables that travel per query, by the query field each goes in. */
const KEYS = {
  ANTHROPIC_API_KEY: "anthropicApiKey",
  ANTHROPIC_AUTH_TOKEN: "anthropicAuthToken",
  OPENAI_API_KEY: "openaiApiKey",
  AWS_ACCESS_KEY_ID: "awsAccessKeyId",
  AWS_SECRET_ACCESS_KEY: "awsSecretAccessKey",
  AWS_SESSION_TOKEN: "awsSessionToken",
  AWS_BEARER_TOKEN_BEDROCK: "awsBearerTokenBedrock",
} as const;

/** The variables a runner's environment must not carry: the credentials above, and what leads to
 * the credentials only the server reads (Google's file, a web identity's token file and role). */
export const CREDENTIAL_VARIABLES = [...Object.keys(KEYS), "GOOGLE_APPLICATION_CREDENTIALS", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME"];

/** A token handed to a run has at least this much life left: Google's last an hour, so a kept one
 * is replaced once it has served for three quarters of it. A run that goes on longer than the life
 * its token had left gets Vertex AI's refusal (401); the session's next message brings a fresh one. */
export const GOOGLE_TOKEN_LEFT_MS = 15 * 60_000;

export type ServerCredentials = {
  /** The credentials for one query. Rejects with an Error in the server's words (the run's error)
   * when the server's own credentials fail: none for Bedrock, a token Google refuses. */
  forQuery(): Promise<QueryCredentials>;
  /** The credential files (the SSO token cache, web identity token files) the server reads, to hide
   * from sandboxed commands. */
  files: string[];
};

export function serverCredentials(env: Env, mintToken: (env: Env, now: () => number, leftMs: number) => Promise<string> = googleAccessToken): ServerCredentials {
  const given: QueryCredentials = Object.fromEntries(Object.entries(KEYS).flatMap(([name, field]) => (env[name]?.trim() ? [[field, env[name].trim()]] : [])));
  const bedrock = settingsOr(() => bedrockSettings(env));
  const vertex = settingsOr(() => vertexSettings(env));
  // The server reads a profile's keys only when its environment gives none.
  const readsProfile = bedrock !== undefined && !bedrock.skipAuth && !given.awsBearerTokenBedrock && !(given.awsAccessKeyId && given.awsSecretAccessKey);
  const mints = vertex !== undefined && !vertex.skipAuth;
  const files = [...(readsProfile ? [awsFiles(env).credentials, ssoCacheDir(env), ...webIdentityTokenFiles(env)] : []), ...(mints ? googleCredentialFiles(env) : [])];
  return {
    files,
    async forQuery() {
      const out: QueryCredentials = { ...given };
      if (readsProfile) Object.assign(out, await profileKeys(env));
      if (mints) {
        try {
          out.googleAccessToken = await mintToken(env, Date.now, GOOGLE_TOKEN_LEFT_MS);
        } catch (error) {
          throw new Error(`the server could not get a Google access token for Vertex AI: ${(error as Error).message}`, { cause: error });
        }
        // None when the token came from the metadata server: Claude Code would stop at a file that is not there.
        const file = credentialsFile(env).path;
        if (env.GOOGLE_APPLICATION_CREDENTIALS?.trim() || existsSync(file)) out.googleCredentialsFile = file;
      }
      return out;
    },
  };
}

/** The settings, or undefined when they cannot be used: the runner says why, as it would without a server. */
function settingsOr<T>(read: () => T | undefined): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

async function profileKeys(env: Env): Promise<QueryCredentials> {
  try {
    const auth = await bedrockAuth(env, await trustedAwsCommands({ home: env.HOME || homedir() }));
    if ("bearer" in auth) return { awsBearerTokenBedrock: auth.bearer };
    return { awsAccessKeyId: auth.keys.accessKeyId, awsSecretAccessKey: auth.keys.secretAccessKey, ...(auth.keys.sessionToken && { awsSessionToken: auth.keys.sessionToken }) };
  } catch (error) {
    if (!(error instanceof AwsCredentialsError)) throw error;
    const said = error.message.startsWith("no ") ? `the server has ${error.message}` : `the server's AWS credentials for Amazon Bedrock fail: ${error.message}`;
    throw new Error(`${said} (where \`harness serve\` runs)`, { cause: error });
  }
}
