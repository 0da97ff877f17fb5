// What the sandbox lets a run's Bash commands do, from its settings and permission rules.
import path from "node:path";
import type { PermissionRule } from "../permissions/types.ts";
import type { SandboxSettings } from "./settings.ts";

/** Paths inside every writable directory that a sandboxed command may not write: each configures
 * something that later runs outside the sandbox (hooks and MCP servers from the settings, git's
 * hooks and its config, commands, agents and skills the model is handed), so writing one would
 * be a way out. */
export const PROTECTED_PATHS = [
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".claude/commands",
  ".claude/agents",
  ".claude/skills",
  ".mcp.json",
  ".git/hooks",
  ".git/config",
  ".gitmodules",
] as const;

export type SandboxPolicy = {
  /** A command the sandbox would run needs no approval (deny and ask rules still apply). */
  autoAllow: boolean;
  /** A call may ask to run outside the sandbox (then it needs approval like any command). */
  allowUnsandboxed: boolean;
  /** Commands (a name, or a prefix of words) that run outside the sandbox. */
  excludedCommands: readonly string[];
  /** When the sandbox cannot start here, refuse to run commands instead of running them outside it. */
  failIfUnavailable: boolean;
  /** denyRead hides; allowRead shows again what lies inside a hidden path (the working directories
   * inside a host's hidden data). */
  filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead: string[]; allowRead: string[] };
  network: { allowedDomains: string[]; allowUnixSockets?: string[]; allowAllUnixSockets?: boolean; allowLocalBinding?: boolean };
  /** Why the sandbox cannot run on this machine; absent when it can. */
  unavailable?: string;
};

/** Whether a Bash call runs inside the sandbox: the sandbox is on, the command is not excluded,
 * and the call did not ask to run outside it (or may not). Whether the sandbox can start is
 * another matter (`unavailable`). */
export function runsInSandbox(command: string, disableRequested: boolean | undefined, policy: SandboxPolicy | undefined): policy is SandboxPolicy {
  if (!policy) return false;
  if (disableRequested === true && policy.allowUnsandboxed) return false;
  return !isExcluded(command, policy);
}

export type PolicyPlaces = {
  cwd: string;
  home: string;
  projectRoot: string;
  /** The working directories besides cwd (absolute). */
  additionalDirectories: readonly string[];
  allowRules: readonly PermissionRule[];
  denyRules: readonly PermissionRule[];
  /** Paths hidden from commands but for the working directories inside them (RunAgentOptions.sandboxHidden). */
  hidden?: readonly string[];
};

/** The run's sandbox policy; undefined when the settings do not turn the sandbox on. */
export function sandboxPolicy(settings: SandboxSettings | undefined, places: PolicyPlaces): SandboxPolicy | undefined {
  if (settings?.enabled !== true) return undefined;
  const resolve = (p: string) => resolvePath(p, places);
  const writable = unique([places.cwd, ...places.additionalDirectories, ...(settings.filesystem?.allowWrite ?? []).map(resolve)]);
  const roots = unique([...writable, places.projectRoot]);
  const protectedPaths = roots.flatMap((root) => PROTECTED_PATHS.map((p) => path.join(root, p)));
  const denied = unique([...(settings.network?.deniedDomains ?? []), ...webFetchDomains(places.denyRules)]);
  const allowed = unique([...(settings.network?.allowedDomains ?? []), ...webFetchDomains(places.allowRules)]).filter((d) => !denied.some((x) => covers(x, d)));
  const network = settings.network;
  const hidden = (places.hidden ?? []).map((p) => path.resolve(p));
  const shownAgain = roots.filter((root) => hidden.some((h) => isInside(root, h)));
  return {
    autoAllow: settings.autoAllowBashIfSandboxed !== false,
    allowUnsandboxed: settings.allowUnsandboxedCommands !== false,
    excludedCommands: settings.excludedCommands ?? [],
    failIfUnavailable: settings.failIfUnavailable === true,
    filesystem: {
      allowWrite: writable,
      denyWrite: unique([...protectedPaths, ...(settings.filesystem?.denyWrite ?? []).map(resolve)]),
      denyRead: unique([...hidden, ...(settings.filesystem?.denyRead ?? []).map(resolve)]),
      allowRead: shownAgain,
    },
    network: {
      allowedDomains: allowed,
      ...(network?.allowUnixSockets && { allowUnixSockets: network.allowUnixSockets.map(resolve) }),
      ...(network?.allowAllUnixSockets !== undefined && { allowAllUnixSockets: network.allowAllUnixSockets }),
      ...(network?.allowLocalBinding !== undefined && { allowLocalBinding: network.allowLocalBinding }),
    },
  };
}

/** Whether `command` runs outside the sandbox because the settings exclude it: its first word is an
 * excluded name, or its words start with an excluded prefix of words. */
export function isExcluded(command: string, policy: SandboxPolicy): boolean {
  const words = command.trim().split(/\s+/);
  return policy.excludedCommands.some((excluded) => {
    const prefix = excluded.trim().split(/\s+/);
    return prefix.every((word, i) => words[i] === word);
  });
}

/** `~/` is the home directory; a relative path starts at the project root. */
function resolvePath(p: string, places: PolicyPlaces): string {
  if (p === "~") return places.home;
  if (p.startsWith("~/")) return path.join(places.home, p.slice(2));
  return path.resolve(places.projectRoot, p);
}

/** The domains of `WebFetch(domain:…)` rules: what a command may reach is what WebFetch may. */
function webFetchDomains(rules: readonly PermissionRule[]): string[] {
  return rules.flatMap((rule) => (rule.tool === "WebFetch" && rule.specifier?.startsWith("domain:") ? [rule.specifier.slice("domain:".length).trim().toLowerCase()] : []));
}

/** Whether the domain pattern `denied` covers every host of `allowed`. */
function covers(denied: string, allowed: string): boolean {
  const d = denied.toLowerCase();
  const a = allowed.toLowerCase();
  if (d === a) return true;
  if (!d.startsWith("*.")) return false;
  // `*.example.com` is every subdomain, not example.com itself.
  return a.endsWith(d.slice(1));
}

function isInside(p: string, dir: string): boolean {
  const relative = path.relative(dir, p);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
