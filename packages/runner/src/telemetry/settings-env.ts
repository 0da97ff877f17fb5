// The environment telemetry is configured from: the process's, with the `env` of the user's and
// the managed settings files over it (managed last), as teams set OTEL_* in managed settings.
// A repository's settings (.claude/settings.json, settings.local.json) are not read: as they may
// not route the model's requests (agent/src/harness/harness-env.ts), they may not send a run's
// prompts and figures to a collector of their own either. Read synchronously, once per process:
// two small files, read whether telemetry is on or not, since they may be what turns it on.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MANAGED_SETTINGS_PATH } from "@harness/agent/managed-settings-path";
import { userConfigDir } from "@harness/agent/user-config-dir";

type Env = Readonly<Record<string, string | undefined>>;

/** The `env` object of a settings file: its string values; nothing when the file is missing or unreadable. */
function envOfFile(file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    // The settings' own loading reports a broken file; here it only gives no variables.
    return {};
  }
  const env = (parsed as { env?: unknown } | null)?.env;
  if (env === null || typeof env !== "object" || Array.isArray(env)) return {};
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

export function telemetryEnv(env: Env, managedPath: string = DEFAULT_MANAGED_SETTINGS_PATH): Env {
  const user = envOfFile(join(userConfigDir(env.HOME ?? homedir(), env), "settings.json"));
  const managed = envOfFile(managedPath);
  if (Object.keys(user).length === 0 && Object.keys(managed).length === 0) return env;
  return { ...env, ...user, ...managed };
}
