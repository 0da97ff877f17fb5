// Claude Code's switches for Claude on Amazon Bedrock, read from the environment. Imports no
// provider, so that a caller can ask whether Bedrock is on before it loads any.
import { homedir } from "node:os";
import { join } from "node:path";
import { switchOn, switchProblems } from "../env-switch.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type BedrockSettings = {
  region: string;
  /** Ends without "/": the requests go to {baseURL}/model/{modelId}/… */
  baseURL: string;
  /** CLAUDE_CODE_SKIP_BEDROCK_AUTH: sign nothing (a gateway in between adds its own credentials). */
  skipAuth: boolean;
};

/** An AWS region: "us-east-1", "eu-central-2", "us-gov-west-1". */
export const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** Whether CLAUDE_CODE_USE_BEDROCK turns Bedrock on ("1", "true"; a malformed value does not). */
export function bedrockEnabled(env: Env): boolean {
  return switchOn(env, "CLAUDE_CODE_USE_BEDROCK");
}

/** AWS_REGION, else AWS_DEFAULT_REGION (empty when neither is set). */
function regionOf(env: Env): string {
  return env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || "";
}

/** Undefined when Bedrock is off; throws (RangeError, naming the variable) when it is on and cannot
 * be used. */
export function bedrockSettings(env: Env): BedrockSettings | undefined {
  const problem = bedrockProblems(env)[0];
  if (problem !== undefined) throw new RangeError(problem);
  if (!bedrockEnabled(env)) return undefined;
  const region = regionOf(env);
  const base = env.ANTHROPIC_BEDROCK_BASE_URL?.trim() || `https://bedrock-runtime.${region}.amazonaws.com`;
  return { region, baseURL: base.replace(/\/+$/, ""), skipAuth: switchOn(env, "CLAUDE_CODE_SKIP_BEDROCK_AUTH") };
}

/** What is wrong with the Bedrock variables of `env`, one line each. ANTHROPIC_BEDROCK_BASE_URL's
 * form is checked with the other endpoints (net/base-urls.ts). */
export function bedrockProblems(env: Env): string[] {
  const problems = switchProblems(env, ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_SKIP_BEDROCK_AUTH"]);
  if (!bedrockEnabled(env)) return problems;
  if (switchOn(env, "CLAUDE_CODE_USE_VERTEX")) problems.push("CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_VERTEX are both set: Claude is served by one of them, unset the other");
  const region = regionOf(env);
  if (region === "") problems.push("CLAUDE_CODE_USE_BEDROCK is set but AWS_REGION is not: set it to the AWS region that serves Claude, such as us-east-1");
  else if (!REGION.test(region)) problems.push(`${env.AWS_REGION?.trim() ? "AWS_REGION" : "AWS_DEFAULT_REGION"} must be an AWS region such as us-east-1, got ${JSON.stringify(region)}`);
  return problems;
}

/** The shared credentials file (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials) and the
 * config file (AWS_CONFIG_FILE, else ~/.aws/config), as the AWS tools find them. */
export function awsFiles(env: Env): { credentials: string; config: string } {
  const home = env.HOME || homedir();
  return {
    credentials: env.AWS_SHARED_CREDENTIALS_FILE?.trim() || join(home, ".aws", "credentials"),
    config: env.AWS_CONFIG_FILE?.trim() || join(home, ".aws", "config"),
  };
}

/** Where `aws sso login` caches its tokens (~/.aws/sso/cache), one JSON file per sso-session. */
export function ssoCacheDir(env: Env): string {
  return join(env.HOME || homedir(), ".aws", "sso", "cache");
}
