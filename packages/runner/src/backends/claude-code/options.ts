// How Claude Code is started for a run: which binary, with which environment, in which mode.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import type { HookCallback, Options, PermissionMode as ClaudePermissionMode, SettingSource } from "@anthropic-ai/claude-agent-sdk";
import { hostHiddenCallDenial } from "@harness/agent/host-hidden";
import { splitModelId } from "@harness/llm/model-prefix";
import { awsFiles, bedrockEnabled } from "@harness/llm/bedrock-settings";
import { credentialsFile, vertexEnabled } from "@harness/llm/vertex-settings";
import type { RunnerQuery } from "@harness/protocol";
import { RUNNER_MARK_ENV } from "../../orphans.ts";
import { claudeCodeTelemetryEnv } from "../../telemetry/active.ts";

export type HarnessPermissionMode = NonNullable<RunnerQuery["permissionMode"]>;

/** The Claude Code binary that ships with the Agent SDK as an optional per-platform package (the
 * same lookup the SDK makes), or undefined when that package is not installed. */
export function findClaudeCodeExecutable(): string | undefined {
  let require: NodeJS.Require;
  try {
    require = createRequire(import.meta.resolve("@anthropic-ai/claude-agent-sdk"));
  } catch {
    return undefined;
  }
  const base = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`;
  const names = process.platform === "linux" ? [base, `${base}-musl`] : [base];
  const file = process.platform === "win32" ? "claude.exe" : "claude";
  for (const name of names) {
    try {
      const path = require.resolve(`${name}/${file}`);
      if (existsSync(path)) return path;
    } catch {
      // not installed for this platform variant
    }
  }
  return undefined;
}

/** A model id in Claude Code's terms: the harness's "anthropic/" prefix is dropped, as the builtin
 * backend drops it, and a model of another provider is refused, since Claude Code speaks only
 * Anthropic's API. Aliases (sonnet, opus, …) and ids with other slashes are Claude Code's to read. */
export function claudeCodeModel(model: string): { ok: true; model: string } | { ok: false; error: string } {
  const wanted = model.trim();
  const { prefix, rest } = splitModelId(wanted);
  if (prefix === "anthropic") return rest ? { ok: true, model: rest } : { ok: false, error: `no model id in "${wanted}": expected anthropic/<model>` };
  if (prefix === "openai" || prefix === "ollama") {
    return { ok: false, error: `Claude Code runs Anthropic's models only, not "${wanted}": name a Claude model (claude-…, anthropic/claude-…, or an alias such as sonnet), or use the builtin backend for it` };
  }
  return { ok: true, model: wanted };
}

/** The model of runs that name none: the runner's HARNESS_MODEL, else ANTHROPIC_MODEL, handed to
 * Claude Code as its ANTHROPIC_MODEL (which its filtered environment would not carry), so that it
 * ranks as Claude Code ranks that variable. Undefined: none is set, Claude Code chooses. */
export function defaultClaudeCodeModel(runnerEnv: Record<string, string | undefined>): { ok: true; model?: string } | { ok: false; error: string } {
  const wanted = runnerEnv.HARNESS_MODEL?.trim() || runnerEnv.ANTHROPIC_MODEL?.trim();
  return wanted ? claudeCodeModel(wanted) : { ok: true };
}

/** Where a workspace's Claude Code keeps its own state, inside the runner's state directory:
 * sessions never share ~/.claude or Claude Code's temporary files, and transcripts survive for
 * `resume`. */
export function claudeCodeDirs(stateDir: string): { configDir: string; home: string; tmp: string } {
  return { configDir: join(stateDir, "claude"), home: join(stateDir, "claude-home"), tmp: join(stateDir, "claude-tmp") };
}

/** Whether Claude Code has the transcript of `sessionId` in this state directory (it files them
 * under projects/<one directory per working directory>/<session id>.jsonl). */
export async function sessionStored(configDir: string, sessionId: string): Promise<boolean> {
  const projects = join(configDir, "projects");
  let dirs: string[];
  try {
    dirs = await readdir(projects);
  } catch {
    return false;
  }
  return dirs.some((dir) => existsSync(join(projects, dir, `${sessionId}.jsonl`)));
}

/** The whole environment of the Claude Code process. Nothing else of the runner's environment is
 * passed on: the runner may hold secrets that a command run by the model must not see. */
export function claudeCodeEnv(input: {
  /** Absent when Claude Code is started for something other than model calls. */
  apiKey?: string;
  /** A bearer token, when there is no key. */
  authToken?: string;
  stateDir: string;
  /** From the runner's environment: ANTHROPIC_BASE_URL, ANTHROPIC_CUSTOM_HEADERS, PATH, the proxy
   * variables, NODE_EXTRA_CA_CERTS and the client certificate's (CLAUDE_CODE_CLIENT_*), the Vertex and Bedrock switches with their credentials, and
   * the runner's mark (HARNESS_RUNNER_PROCESS). */
  runnerEnv: Record<string, string | undefined>;
  /** Deployment additions (e.g. CLAUDE_CODE_MAX_RETRIES), given explicitly by whoever builds the backend. */
  extra?: Record<string, string>;
  /** The model of runs that name none (defaultClaudeCodeModel). */
  defaultModel?: string;
  /** The cloud credentials the query brought (a server keeps them from the runner's environment):
   * they win over the runner's. */
  cloud?: Pick<RunnerQuery, "awsAccessKeyId" | "awsSecretAccessKey" | "awsSessionToken" | "awsBearerTokenBedrock" | "googleCredentialsFile">;
}): Record<string, string> {
  const cloud = input.cloud ?? {};
  const dirs = claudeCodeDirs(input.stateDir);
  const env: Record<string, string> = {
    PATH: input.runnerEnv.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    CLAUDE_CONFIG_DIR: dirs.configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  if (input.apiKey) env.ANTHROPIC_API_KEY = input.apiKey;
  else if (input.authToken) env.ANTHROPIC_AUTH_TOKEN = input.authToken;
  if (input.runnerEnv.ANTHROPIC_BASE_URL) env.ANTHROPIC_BASE_URL = input.runnerEnv.ANTHROPIC_BASE_URL;
  if (input.runnerEnv.ANTHROPIC_CUSTOM_HEADERS) env.ANTHROPIC_CUSTOM_HEADERS = input.runnerEnv.ANTHROPIC_CUSTOM_HEADERS;
  // Behind a corporate proxy Claude Code needs it as the runner does, the file of the CA that
  // proxy's or a gateway's certificates are signed by, and the client certificate a gateway asks for.
  for (const name of NETWORK_VARIABLES) if (input.runnerEnv[name]?.trim()) env[name] = input.runnerEnv[name];
  if (vertexEnabled(input.runnerEnv)) {
    for (const [name, value] of Object.entries(input.runnerEnv)) if (value && VERTEX_VARIABLE.test(name)) env[name] = value;
    // Claude Code's HOME is another: it is told where the credentials are. It takes no ready access
    // token (it mints its own through google-auth-library, and its documentation names no variable
    // for one), so the query's googleAccessToken is not for it: it is given the file the server
    // minted that token from. With the sandbox on, that file is hidden from its commands. Where no
    // file is named and gcloud's is not there, it is told of none: google-auth-library stops at a
    // GOOGLE_APPLICATION_CREDENTIALS without a file, and would not go on to the metadata server.
    const file = cloud.googleCredentialsFile ?? credentialsFile(input.runnerEnv).path;
    if (cloud.googleCredentialsFile || input.runnerEnv.GOOGLE_APPLICATION_CREDENTIALS?.trim() || existsSync(file)) env.GOOGLE_APPLICATION_CREDENTIALS = file;
  }
  if (bedrockEnabled(input.runnerEnv)) {
    for (const [name, value] of Object.entries(input.runnerEnv)) if (value && BEDROCK_VARIABLE.test(name)) env[name] = value;
    // Claude Code reads the region from AWS_REGION only.
    const region = input.runnerEnv.AWS_REGION || input.runnerEnv.AWS_DEFAULT_REGION;
    if (region) env.AWS_REGION = region;
    // Its HOME is another: it is told where the runner's AWS files are.
    const files = awsFiles(input.runnerEnv);
    env.AWS_SHARED_CREDENTIALS_FILE = files.credentials;
    env.AWS_CONFIG_FILE = files.config;
    if (cloud.awsBearerTokenBedrock) env.AWS_BEARER_TOKEN_BEDROCK = cloud.awsBearerTokenBedrock;
    if (cloud.awsAccessKeyId && cloud.awsSecretAccessKey) {
      env.AWS_ACCESS_KEY_ID = cloud.awsAccessKeyId;
      env.AWS_SECRET_ACCESS_KEY = cloud.awsSecretAccessKey;
      if (cloud.awsSessionToken) env.AWS_SESSION_TOKEN = cloud.awsSessionToken;
      else delete env.AWS_SESSION_TOKEN;
    }
  }
  if (input.defaultModel) env.ANTHROPIC_MODEL = input.defaultModel;
  // Claude Code runs each command in a session of its own: the runner's mark is how they are found
  // if the runner dies (orphans.ts).
  if (input.runnerEnv[RUNNER_MARK_ENV]) env[RUNNER_MARK_ENV] = input.runnerEnv[RUNNER_MARK_ENV];
  return { ...env, ...input.extra };
}

/** Claude Code's own switches for Claude on Vertex AI, handed on when CLAUDE_CODE_USE_VERTEX is on. */
const VERTEX_VARIABLE = /^(CLAUDE_CODE_USE_VERTEX|GCE_METADATA_HOST|GCE_METADATA_IP|ANTHROPIC_VERTEX_PROJECT_ID|ANTHROPIC_VERTEX_BASE_URL|CLOUD_ML_REGION|CLAUDE_CODE_SKIP_VERTEX_AUTH|VERTEX_REGION_CLAUDE_[A-Z0-9_]+)$/;

/** Claude Code's own switches for Claude on Amazon Bedrock and the AWS credentials it reads, handed
 * on when CLAUDE_CODE_USE_BEDROCK is on. */
const BEDROCK_VARIABLE = /^(CLAUDE_CODE_USE_BEDROCK|CLAUDE_CODE_SKIP_BEDROCK_AUTH|ANTHROPIC_BEDROCK_BASE_URL|ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION|AWS_REGION|AWS_DEFAULT_REGION|AWS_PROFILE|AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|AWS_BEARER_TOKEN_BEDROCK)$/;

/** The proxy variables, as Claude Code reads them (upper or lower case). */
const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"] as const;

/** How Claude Code gets out of the runner's network: the proxies, the extra CA file to trust and
 * the client certificate for servers that ask for one (mutual TLS). */
const NETWORK_VARIABLES = [...PROXY_VARIABLES, "NODE_EXTRA_CA_CERTS", "CLAUDE_CODE_CLIENT_CERT", "CLAUDE_CODE_CLIENT_KEY", "CLAUDE_CODE_CLIENT_KEY_PASSPHRASE"] as const;

/** The variables that say where Claude Code reaches the model: its endpoint and the proxies
 * between (and the hosts that go around them). */
const ENDPOINT_VARIABLES = ["ANTHROPIC_BASE_URL", ...PROXY_VARIABLES] as const;

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/** Where Claude Code reaches the model, as its environment (claudeCodeEnv) says, laid over every
 * settings file as command-line settings (`--settings`, which rank above the workspace's own).
 * Claude Code applies a settings file's `env` over its environment, and a workspace's
 * `.claude/settings*.json` must not send the key it is given elsewhere (an ANTHROPIC_BASE_URL or a
 * proxy of its choosing), as the builtin backend keeps it from doing. An empty proxy is none. */
export function pinnedEndpointEnv(env: Record<string, string>): Record<string, string> {
  const pinned: Record<string, string> = {};
  for (const name of ENDPOINT_VARIABLES) pinned[name] = env[name] ?? (name === "ANTHROPIC_BASE_URL" ? ANTHROPIC_DEFAULT_BASE_URL : "");
  return pinned;
}

/** The mode Claude Code itself runs in. "bypassPermissions" is carried out by the harness instead:
 * Claude Code runs in acceptEdits and every call it would ask about is approved by canUseTool.
 * Claude Code refuses --dangerously-skip-permissions as root (as in most sandboxes), and this way a
 * run can also be switched into and out of it while in flight. */
export function claudePermissionMode(mode: HarnessPermissionMode): ClaudePermissionMode {
  return mode === "bypassPermissions" ? "acceptEdits" : mode;
}

/** How the run continues an earlier conversation: all of a session, or a fork of it cut at `at`. */
export type ResumePlan = { sessionId: string; at?: string };

export type LaunchInput = {
  query: RunnerQuery;
  resume?: ResumePlan;
  cwd: string;
  /** Paths Claude Code's sandbox hides from commands when the settings turn it on, but for the
   * working directory (SANDBOX_HIDE_ENV). */
  sandboxHidden?: readonly string[];
  executable: string;
  env: Record<string, string>;
  settingSources: SettingSource[];
  canUseTool: NonNullable<Options["canUseTool"]>;
  abortController: AbortController;
  stderr: (chunk: string) => void;
};

export function launchOptions(input: LaunchInput): Options {
  const q = input.query;
  return {
    cwd: input.cwd,
    env: input.env,
    pathToClaudeCodeExecutable: input.executable,
    abortController: input.abortController,
    model: q.model,
    effort: q.effort,
    maxTurns: q.maxTurns,
    resume: input.resume?.sessionId,
    ...(input.resume?.at ? { resumeSessionAt: input.resume.at, forkSession: true } : {}),
    // Claude Code's own system prompt (the SDK's default is a bare one); the query's is appended.
    systemPrompt: { type: "preset", preset: "claude_code", ...(q.systemPrompt ? { append: q.systemPrompt } : {}) },
    permissionMode: claudePermissionMode(q.permissionMode ?? "default"),
    canUseTool: input.canUseTool,
    settingSources: input.settingSources,
    settings: { env: { ...pinnedEndpointEnv(input.env), ...claudeCodeTelemetryEnv() } },
    includePartialMessages: true,
    forwardSubagentText: true,
    enableFileCheckpointing: true,
    // Echo each user message as Claude Code takes it: the uuid of the first names the file
    // checkpoint taken before the run, and the echoes are the user turns of the transcript.
    extraArgs: { "replay-user-messages": null },
    stderr: input.stderr,
    // Restrictions only: whether there is a sandbox stays the settings' choice (`enabled` unset),
    // and these lists are added to theirs.
    ...(input.sandboxHidden?.length && { sandbox: { filesystem: { denyRead: [...input.sandboxHidden], allowRead: [input.cwd] } } }),
    // Claude Code's file tools never reach them either, whatever its mode, rules or approvals: a
    // PreToolUse hook runs before every call, those its rules allow included.
    ...(input.sandboxHidden?.length && { hooks: { PreToolUse: [{ hooks: [hostHiddenHook(input.cwd, input.env.HOME ?? homedir(), input.sandboxHidden)] }] } }),
  };
}

/** Denies the file tool calls that reach `hidden` but for `cwd` (see hostHiddenCallDenial). */
function hostHiddenHook(cwd: string, home: string, hidden: readonly string[]): HookCallback {
  return async (hook) => {
    if (hook.hook_event_name !== "PreToolUse") return {};
    const reason = hostHiddenCallDenial(hook.tool_name, hook.tool_input, { cwd, home, hidden });
    if (reason === undefined) return {};
    return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } };
  };
}
