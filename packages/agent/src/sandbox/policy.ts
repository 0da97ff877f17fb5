// What the sandbox lets a run's Bash commands do, from its settings and permission rules.
import path from "node:path";
import { hasGlob, unescapeGlob } from "../glob-regexp.ts";
import type { PermissionRule } from "../permissions/types.ts";
import { isWithin } from "../files/real-paths.ts";
import { userConfigDir } from "../config/user-config-dir.ts";
import { isLibraryPattern, named, patternBelow, type SandboxPath } from "./sandbox-paths.ts";
import type { SandboxSettings } from "./settings.ts";
import { workspaceEnvDir, workspaceTmpDir } from "./tmp-dir.ts";

/** Paths inside every writable directory that a sandboxed command may not write: each configures
 * something that later runs outside the sandbox (hooks and MCP servers from the settings, git's
 * hooks, its config wherever git looks for it, commands, agents and skills the model is handed,
 * the scripts of the settings' hooks, an editor's tasks and settings), so writing one would be a
 * way out. Where `.git` or `.claude`
 * does not exist, the whole directory is kept from being made (see protectedPaths). The paths of PROTECTED_IF_PRESENT only where they
 * exist: git reads them when they are there, and what the sandbox mounts over a missing path
 * cannot be read, which would stop git (a missing `.git/commondir`, which would let a command hand
 * git a config of its own, gets a stand-in that git reads as no change: runtime.ts). The harness's
 * own git commands ignore the programs a repository's config names, wherever it comes from
 * (git-snapshot.ts). */
export const PROTECTED_PATHS = [
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".claude/commands",
  ".claude/agents",
  ".claude/skills",
  // Where Claude Code's documentation keeps the scripts hooks run ("$CLAUDE_PROJECT_DIR"/.claude/hooks/…).
  ".claude/hooks",
  ".mcp.json",
  // Editors' workspace settings and tasks (as Claude Code's sandbox keeps them).
  ".vscode",
  ".idea",
  ".gitmodules",
  ".git/hooks",
  ".git/config",
  ".git/config.worktree",
  ".git/commondir",
  ".git/modules",
  ".git/worktrees",
] as const;

const PROTECTED_IF_PRESENT = new Set<string>([".git/config.worktree", ".git/commondir", ".git/modules", ".git/worktrees"]);

export type SandboxPolicy = {
  /** A command the sandbox would run needs no approval (deny and ask rules still apply). */
  autoAllow: boolean;
  /** A call may ask to run outside the sandbox (then it needs approval). */
  allowUnsandboxed: boolean;
  /** Commands (a name, or a prefix of words) that run outside the sandbox. */
  excludedCommands: readonly string[];
  /** When the sandbox cannot start here, refuse to run commands instead of running them outside it. */
  failIfUnavailable: boolean;
  /** The directories whose PROTECTED_PATHS are kept from commands (checked as each command starts). */
  protectedRoots: string[];
  /** denyRead hides; allowRead shows again what lies inside a hidden path (the working directories
   * inside a host's hidden data). denyWrite holds the settings' and the deny rules' paths; the
   * protected paths are added as each command starts. Only what a rule or setting spells as a
   * pattern is one; every other path is a name, whatever characters it holds (sandbox-paths.ts). */
  filesystem: { allowWrite: SandboxPath[]; denyWrite: SandboxPath[]; denyRead: SandboxPath[]; allowRead: SandboxPath[] };
  network: { allowedDomains: string[]; allowUnixSockets?: string[]; allowAllUnixSockets?: boolean; allowLocalBinding?: boolean };
  /** The commands' TMPDIR: a directory of this workspace's own (made as a command starts). */
  tmpDir: string;
  /** What the run is told about the policy (rules the sandbox cannot enforce, domains left out). */
  notes: string[];
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

const READ_RULE_TOOLS = new Set(["Read"]);
const WRITE_RULE_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

/** The run's sandbox policy; undefined when the settings do not turn the sandbox on. */
export function sandboxPolicy(settings: SandboxSettings | undefined, places: PolicyPlaces): SandboxPolicy | undefined {
  if (settings?.enabled !== true) return undefined;
  const notes: string[] = [];
  const resolve = (p: string) => resolvePath(p, places);
  const entry = (p: string) => settingsEntry(p, places);
  const tmpDir = workspaceTmpDir(places.cwd);
  const hidden = (places.hidden ?? []).map((p) => path.resolve(p));
  // What the host hides stays hidden but for the working directory: a directory inside it (another
  // session's workspace, the store) is not made writable, nor visible again, by the settings.
  const requested = unique([...places.additionalDirectories, ...(settings.filesystem?.allowWrite ?? []).map(resolve)]);
  const hiddenOnes = requested.filter((dir) => !isWithin(dir, places.cwd) && hidden.some((h) => isWithin(dir, h)));
  if (hiddenOnes.length > 0) {
    notes.push(`The sandbox leaves ${hiddenOnes.join(", ")} out of the directories its commands may write: ${hiddenOnes.length > 1 ? "they lie" : "it lies"} in the server's data directory, which they do not see but for this workspace.`);
  }
  const writable = unique([places.cwd, ...requested.filter((dir) => !hiddenOnes.includes(dir))]);
  // The user's own configuration (~/.claude, ~/.claude.json) is protected too when a writable
  // directory reaches it; so is a CLAUDE_CONFIG_DIR elsewhere, whole.
  const homeConfig = path.join(places.home, ".claude");
  const homeReached = writable.some((w) => isWithin(w, homeConfig) || isWithin(places.home, w));
  const userConfig = userConfigDir(places.home);
  const movedConfig = userConfig !== homeConfig && writable.some((w) => isWithin(w, userConfig) || isWithin(userConfig, w)) ? [named(userConfig)] : [];
  const fromRules = denyRuleBoundaries(places);
  let autoAllow = settings.autoAllowBashIfSandboxed !== false;
  if (autoAllow && fromRules.unenforceable.length > 0) {
    autoAllow = false;
    notes.push(`The sandbox cannot enforce ${fromRules.unenforceable.map((t) => `"${t}"`).join(", ")} (a pattern in a path that bubblewrap cannot follow), so Bash commands ask for approval as they do without it.`);
  }
  const network = settings.network;
  return {
    autoAllow,
    allowUnsandboxed: settings.allowUnsandboxedCommands !== false,
    excludedCommands: settings.excludedCommands ?? [],
    failIfUnavailable: settings.failIfUnavailable === true,
    protectedRoots: unique([...writable, places.projectRoot, ...(homeReached ? [places.home] : [])]),
    filesystem: {
      allowWrite: [...writable, tmpDir].map(named),
      denyWrite: uniqueEntries([...(homeReached ? [named(path.join(places.home, ".claude.json"))] : []), ...movedConfig, ...(settings.filesystem?.denyWrite ?? []).map(entry), ...fromRules.write]),
      denyRead: uniqueEntries([...hidden.map(named), ...(settings.filesystem?.denyRead ?? []).map(entry), ...fromRules.read]),
      allowRead: unique([...writable, places.projectRoot, tmpDir, workspaceEnvDir(places.cwd)])
        .filter((root) => hidden.some((h) => isWithin(root, h)))
        .map(named),
    },
    network: {
      allowedDomains: allowedDomains(settings, places, notes),
      ...(network?.allowUnixSockets && { allowUnixSockets: network.allowUnixSockets.map(resolve) }),
      ...(network?.allowAllUnixSockets !== undefined && { allowAllUnixSockets: network.allowAllUnixSockets }),
      ...(network?.allowLocalBinding !== undefined && { allowLocalBinding: network.allowLocalBinding }),
    },
    tmpDir,
    notes,
  };
}

/** Whether `command` runs outside the sandbox because the settings exclude it: its first word is an
 * excluded name, or its words start with an excluded prefix of words. */
export function isExcluded(command: string, policy: Pick<SandboxPolicy, "excludedCommands">): boolean {
  const words = command.trim().split(/\s+/);
  return policy.excludedCommands.some((excluded) => {
    const prefix = excluded.trim().split(/\s+/);
    return prefix.every((word, i) => words[i] === word);
  });
}

/** The settings' allowed domains and those of WebFetch(domain:…) allow rules (what a command may
 * reach is what WebFetch may), less the denied ones. The sandbox allows a domain list per command
 * and cannot carve a host out of an allowed wildcard: such a wildcard is left out, and said. */
function allowedDomains(settings: SandboxSettings, places: PolicyPlaces, notes: string[]): string[] {
  const denied = unique([...(settings.network?.deniedDomains ?? []), ...webFetchDomains(places.denyRules)]);
  const allowed = unique([...(settings.network?.allowedDomains ?? []), ...webFetchDomains(places.allowRules)]);
  return allowed.filter((domain) => {
    if (denied.some((d) => covers(d, domain))) return false;
    const carved = denied.filter((d) => covers(domain, d));
    if (carved.length > 0) notes.push(`The sandbox leaves ${domain} out of the allowed domains: it cannot allow it while denying ${carved.join(", ")}.`);
    return carved.length === 0;
  });
}

/** The paths of Read(…) and Edit(…) deny rules, which a sandboxed command must not get around:
 * paths and directories (`src/locked/**`) become the sandbox's own denies, as names (an escaped
 * wildcard is the character itself: `a\*b.ts` is the file `a*b.ts`); a read pattern goes to the
 * sandbox as a pattern (it finds the matching files); a write pattern it cannot enforce. Whether a
 * rule is a pattern is for its own text to say, not the directory it starts from. Braces are plain
 * characters in a rule. */
function denyRuleBoundaries(places: PolicyPlaces): { read: SandboxPath[]; write: SandboxPath[]; unenforceable: string[] } {
  const out = { read: [] as SandboxPath[], write: [] as SandboxPath[], unenforceable: [] as string[] };
  for (const rule of places.denyRules) {
    const reads = READ_RULE_TOOLS.has(rule.tool);
    if (rule.specifier === undefined || (!reads && !WRITE_RULE_TOOLS.has(rule.tool))) continue;
    const { base, glob } = ruleGlob(rule.specifier, rule.root, places);
    if (!hasGlob(glob)) (reads ? out.read : out.write).push(named(path.resolve(base, unescapeGlob(glob))));
    else if (reads) out.read.push(patternBelow(base, glob, true));
    else out.unenforceable.push(rule.text);
  }
  return out;
}

/** A Read/Edit rule's pattern split into the directory it starts from and its glob below that (see
 * compilePathPattern): `//abs`, `~/…`, `/…` from the rule's root, `./…` or `a/b` from cwd, a bare
 * name (`.env`, `*.pem`) at any depth below cwd; a trailing `/**` is the directory itself. */
function ruleGlob(pattern: string, root: string, places: PolicyPlaces): { base: string; glob: string } {
  const p = pattern.replace(/\/\*\*$/, "");
  if (p.startsWith("//")) return { base: "/", glob: p.slice(2) };
  if (p.startsWith("~/")) return { base: places.home, glob: p.slice(2) };
  if (p.startsWith("/")) return { base: root, glob: p.slice(1) };
  if (p.startsWith("./")) return { base: places.cwd, glob: p.slice(2) };
  return { base: places.cwd, glob: p.slice(0, -1).includes("/") ? p : `**/${p}` };
}

/** A path of the sandbox settings, which are in the library's own syntax: a pattern where its text
 * has a wildcard, with the directory it is resolved against (see resolvePath) taken as a name. */
function settingsEntry(p: string, places: PolicyPlaces): SandboxPath {
  if (!isLibraryPattern(p)) return named(resolvePath(p, places));
  if (path.isAbsolute(p)) return p;
  return p.startsWith("~/") ? patternBelow(places.home, p.slice(2)) : patternBelow(places.projectRoot, p);
}

/** `~/` is the home directory; a relative path starts at the project root. */
function resolvePath(p: string, places: PolicyPlaces): string {
  if (p === "~") return places.home;
  if (p.startsWith("~/")) return path.join(places.home, p.slice(2));
  return path.resolve(places.projectRoot, p);
}

/** The domains of `WebFetch(domain:…)` rules. */
function webFetchDomains(rules: readonly PermissionRule[]): string[] {
  return rules.flatMap((rule) => (rule.tool === "WebFetch" && rule.specifier?.startsWith("domain:") ? [rule.specifier.slice("domain:".length).trim().toLowerCase()] : []));
}

/** Whether the domain pattern `outer` covers every host of `inner`. */
function covers(outer: string, inner: string): boolean {
  const o = outer.toLowerCase();
  const i = inner.toLowerCase();
  if (o === i) return true;
  if (!o.startsWith("*.")) return false;
  // `*.example.com` is every subdomain, not example.com itself.
  return i.endsWith(o.slice(1));
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

/** The entries less repeats, a marked path told apart from a spelling of the same text. */
function uniqueEntries(entries: SandboxPath[]): SandboxPath[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = JSON.stringify(entry);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The paths to keep from a command starting now, under each of `roots`: PROTECTED_PATHS, or the
 * whole `.git` or `.claude` where it does not exist (bubblewrap makes an empty directory on the
 * host to mount over a missing path, and another command running meanwhile could fill it: a `.git`
 * made that way would be a repository whose config the harness's own git commands read). Throws
 * when one of them is a symbolic link, which a command could replace. */
export function protectedPaths(roots: readonly string[], lstat: (p: string) => { isSymbolicLink(): boolean; isDirectory(): boolean } | undefined): string[] {
  const out: string[] = [];
  for (const root of roots) {
    // A top that is missing, or a file (a worktree's .git names its git directory), is protected
    // whole: nothing lies inside it.
    const whole = new Set<string>();
    for (const top of [".git", ".claude"]) {
      const stats = lstat(path.join(root, top));
      if (!stats || !stats.isDirectory()) whole.add(top);
      if (stats?.isSymbolicLink()) throw symlinkError(path.join(root, top));
    }
    for (const top of whole) out.push(path.join(root, top));
    for (const inside of PROTECTED_PATHS) {
      if (whole.has(inside.split("/")[0])) continue;
      const full = path.join(root, inside);
      const stats = lstat(full);
      if (stats?.isSymbolicLink()) throw symlinkError(full);
      if (stats || !PROTECTED_IF_PRESENT.has(inside)) out.push(full);
    }
  }
  return unique(out);
}

function symlinkError(file: string): Error {
  return new Error(`${file} is a symbolic link, which a sandboxed command could replace; make it a real file or directory, or run such commands outside the sandbox (sandbox.excludedCommands)`);
}
