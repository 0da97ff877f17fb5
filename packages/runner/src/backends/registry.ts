// The backends a runner can run a query with, by name. Each is loaded on first use: the builtin
// backend brings in the agent and the model SDKs, the claude-code backend the Claude Agent SDK.
import { delimiter, isAbsolute } from "node:path";
import type { ConversationShells } from "@harness/agent/resources";
import type { SessionEndReason } from "@harness/protocol";
import type { Backend } from "../backend.ts";

export type BackendRegistry = {
  /** The backend for a query's `backend` field (absent: the runner's default), or why there is none. */
  select(name: string | undefined): { ok: true; backend: Backend } | { ok: false; error: string };
  get(name: string): Backend | undefined;
  readonly defaultName: string;
  names(): string[];
  /** The conversation's background shells, of the backend that keeps them (loaded, and run once). */
  shells(): ConversationShells | undefined;
  /** Releases what the backends that were used hold (the builtin agent's shells and MCP servers),
   * telling their SessionEnd hooks `reason`. */
  dispose(reason?: SessionEndReason): Promise<void>;
};

export const BACKEND_NAMES = ["builtin", "claude-code"] as const;

/** The default backend name from the environment (HARNESS_BACKEND, default "builtin"), or an error
 * naming the bad value. */
export function defaultBackendName(env: Readonly<Record<string, string | undefined>> = process.env): { ok: true; name: string } | { ok: false; error: string } {
  const name = env.HARNESS_BACKEND?.trim() || "builtin";
  if ((BACKEND_NAMES as readonly string[]).includes(name)) return { ok: true, name };
  return { ok: false, error: `HARNESS_BACKEND must be one of ${BACKEND_NAMES.join(", ")}, got "${name}"` };
}

/** A backend whose module is imported on its first run or rewind; `traits` are the loaded
 * backend's, known before it is. */
export function lazyBackend(name: string, load: () => Promise<Backend>, traits: Pick<Backend, "checkpointsOnChange" | "movesToBackground"> = {}): Backend {
  let loading: Promise<Backend> | undefined;
  /** The backend once loaded: its shells are asked for without loading it (none before then). */
  let ready: Backend | undefined;
  const loaded = () => (loading ??= load().then((backend) => (ready = backend)));
  return {
    name,
    ...traits,
    shells: () => ready?.shells?.(),
    async run(query, ctx) {
      return (await loaded()).run(query, ctx);
    },
    async rewind(request) {
      const backend = await loaded();
      return backend.rewind ? backend.rewind(request) : undefined;
    },
    async prepareTool(call, ctx) {
      const backend = await loaded();
      return backend.prepareTool ? backend.prepareTool(call, ctx) : undefined;
    },
    async probeMcp(probe, ctx) {
      const backend = await loaded();
      return backend.probeMcp ? backend.probeMcp(probe, ctx) : undefined;
    },
    async dispose(reason) {
      if (!loading) return;
      const backend = await loading.catch(() => undefined);
      await backend?.dispose?.(reason);
    },
  };
}

/** Paths (separated as in PATH) that the Bash sandbox hides from commands, but for the working
 * directories inside them; a server names its data directory (RunAgentOptions.sandboxHidden). */
export const SANDBOX_HIDE_ENV = "HARNESS_SANDBOX_HIDE";

/** The paths of SANDBOX_HIDE_ENV: absolute ones only (a relative path would depend on where a
 * command runs). */
export function sandboxHiddenPaths(env: Readonly<Record<string, string | undefined>>): string[] {
  return (env[SANDBOX_HIDE_ENV] ?? "").split(delimiter).filter((p) => isAbsolute(p));
}

/** The builtin and claude-code backends, loaded lazily. The builtin backend keeps one set of agent
 * resources (background shells, files read, MCP servers) for all the runs of this runner, and the
 * environment the runner had when the backend loaded. */
export function standardBackends(): Backend[] {
  const hidden = sandboxHiddenPaths(process.env);
  return [
    lazyBackend(
      "builtin",
      async () =>
        (await import("./builtin.ts")).builtinBackend({
          sharedResources: true,
          env: Object.freeze({ ...process.env }),
          ...(hidden.length > 0 && { runOptions: { sandboxHidden: hidden } }),
        }),
      { checkpointsOnChange: true, movesToBackground: true },
    ),
    lazyBackend("claude-code", async () => (await import("./claude-code/claude-code.ts")).claudeCodeBackend()),
  ];
}

export function createBackendRegistry(backends: readonly Backend[], defaultName: string): BackendRegistry {
  const byName = new Map(backends.map((b) => [b.name, b]));
  const names = () => [...byName.keys()];
  return {
    select(name) {
      const wanted = name ?? defaultName;
      const backend = byName.get(wanted);
      if (backend) return { ok: true, backend };
      return { ok: false, error: `backend: this runner has no backend "${wanted}" (it has ${names().join(", ")})` };
    },
    get: (name) => byName.get(name),
    shells() {
      for (const backend of backends) {
        const shells = backend.shells?.();
        if (shells) return shells;
      }
      return undefined;
    },
    defaultName,
    names,
    async dispose(reason) {
      await Promise.allSettled(backends.map((b) => b.dispose?.(reason)));
    },
  };
}
