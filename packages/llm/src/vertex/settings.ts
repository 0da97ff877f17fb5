// Claude Code's switches for Claude on Google Cloud's Vertex AI, read from the environment.
// Imports no provider, so that a caller can ask whether Vertex is on before it loads any.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { switchOn, switchProblems } from "../env-switch.ts";

type Env = Readonly<Record<string, string | undefined>>;

export const VERTEX_DEFAULT_REGION = "us-east5";

export type VertexSettings = {
  projectId: string;
  region: string;
  /** Ends without "/": the requests go to {baseURL}/projects/… */
  baseURL: string;
  /** CLAUDE_CODE_SKIP_VERTEX_AUTH: send no Google token (a gateway in between adds its own). */
  skipAuth: boolean;
};

/** A Google Cloud region ("us-east5", "europe-west1") or "global". */
const REGION = /^[a-z][a-z0-9-]*$/;

/** Whether CLAUDE_CODE_USE_VERTEX turns Vertex on ("1", "true"; a malformed value does not). */
export function vertexEnabled(env: Env): boolean {
  return switchOn(env, "CLAUDE_CODE_USE_VERTEX");
}

/** Undefined when Vertex is off; throws (RangeError, naming the variable) when it is on and cannot
 * be used. */
export function vertexSettings(env: Env): VertexSettings | undefined {
  const problem = vertexProblems(env)[0];
  if (problem !== undefined) throw new RangeError(problem);
  if (!vertexEnabled(env)) return undefined;
  const region = env.CLOUD_ML_REGION?.trim() || VERTEX_DEFAULT_REGION;
  const base = env.ANTHROPIC_VERTEX_BASE_URL?.trim() || (region === "global" ? "https://aiplatform.googleapis.com/v1" : `https://${region}-aiplatform.googleapis.com/v1`);
  return {
    projectId: env.ANTHROPIC_VERTEX_PROJECT_ID!.trim(),
    region,
    baseURL: base.replace(/\/+$/, ""),
    skipAuth: switchOn(env, "CLAUDE_CODE_SKIP_VERTEX_AUTH"),
  };
}

/** What is wrong with the Vertex variables of `env`, one line each. ANTHROPIC_VERTEX_BASE_URL's
 * form is checked with the other endpoints (net/base-urls.ts). */
export function vertexProblems(env: Env): string[] {
  const problems = switchProblems(env, ["CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_SKIP_VERTEX_AUTH"]);
  if (!vertexEnabled(env)) return problems;
  const project = env.ANTHROPIC_VERTEX_PROJECT_ID?.trim() ?? "";
  if (project === "") problems.push("CLAUDE_CODE_USE_VERTEX is set but ANTHROPIC_VERTEX_PROJECT_ID is not: set it to the Google Cloud project that serves Claude");
  else if (/[/?#\s]/.test(project)) problems.push(`ANTHROPIC_VERTEX_PROJECT_ID must be a Google Cloud project id, got ${JSON.stringify(env.ANTHROPIC_VERTEX_PROJECT_ID)}`);
  const region = env.CLOUD_ML_REGION?.trim();
  if (region && !REGION.test(region)) problems.push(`CLOUD_ML_REGION must be a Google Cloud region such as us-east5 or global, got ${JSON.stringify(env.CLOUD_ML_REGION)}`);
  return problems;
}

/** Where the Google credentials are read from (Application Default Credentials), and the words
 * that name it in an error. */
export function credentialsFile(env: Env): { path: string; named: string } {
  const given = env.GOOGLE_APPLICATION_CREDENTIALS?.trim();
  if (given) return { path: given, named: `${given} (GOOGLE_APPLICATION_CREDENTIALS)` };
  const path = join(env.HOME || homedir(), ".config", "gcloud", "application_default_credentials.json");
  return { path, named: `${path} (gcloud's application default credentials)` };
}

/** The files Google credentials are read from, to keep from whoever must not use them: the
 * credentials file and, for an external account, the file its subject token is read from. A file
 * that cannot be read (yet) names only itself. */
export function googleCredentialFiles(env: Env): string[] {
  const { path } = credentialsFile(env);
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    const credentials = (value ?? {}) as { type?: unknown; credential_source?: { file?: unknown } };
    const subject = credentials.type === "external_account" ? credentials.credential_source?.file : undefined;
    if (typeof subject === "string" && subject) return [path, subject];
  } catch {
    // Said by whoever reads the file for a token.
  }
  return [path];
}
