import assert from "node:assert/strict";
import { test } from "node:test";
import { decide } from "../permissions/decide.ts";
import { toPermissionRules } from "../permissions/parse-rule.ts";
import type { PermissionContext, PermissionMode } from "../permissions/types.ts";
import { validateSettings } from "../settings/validate.ts";
import { PROTECTED_PATHS, protectedPaths, runsInSandbox, sandboxPolicy, type PolicyPlaces, type SandboxPolicy } from "./policy.ts";
import type { SandboxSettings } from "./settings.ts";

const CWD = "/work/proj/app";
const ROOT = "/work/proj";
const HOME = "/home/u";

function rules(texts: string[]) {
  return toPermissionRules(texts, { root: ROOT }).rules;
}

function places(extra: Partial<PolicyPlaces> = {}): PolicyPlaces {
  return { cwd: CWD, home: HOME, projectRoot: ROOT, additionalDirectories: [], allowRules: [], denyRules: [], ...extra };
}

function policy(settings: SandboxSettings, extra: Partial<PolicyPlaces> = {}): SandboxPolicy {
  const made = sandboxPolicy(settings, places(extra));
  assert.ok(made, "expected a policy");
  return made;
}

test("the sandbox is off unless the settings turn it on", () => {
  assert.equal(sandboxPolicy(undefined, places()), undefined);
  assert.equal(sandboxPolicy({}, places()), undefined);
  assert.equal(sandboxPolicy({ enabled: false, filesystem: { allowWrite: ["/x"] } }, places()), undefined);
});

test("commands may write the working directories and the settings' allowWrite, but not what configures what runs outside", () => {
  const p = policy({ enabled: true, filesystem: { allowWrite: ["~/.cache/tool", "build", "/var/tmp/out"], denyWrite: ["app/secret"], denyRead: ["~/.ssh"] } }, { additionalDirectories: ["/data/shared"] });
  assert.deepEqual(p.filesystem.allowWrite, [CWD, "/data/shared", `${HOME}/.cache/tool`, `${ROOT}/build`, "/var/tmp/out", p.tmpDir]);
  assert.match(p.tmpDir, /harness-sandbox-\d+\/[0-9a-f]{16}$/);
  assert.deepEqual(p.protectedRoots, [CWD, "/data/shared", `${HOME}/.cache/tool`, `${ROOT}/build`, "/var/tmp/out", ROOT]);
  assert.deepEqual(p.filesystem.denyWrite, [`${ROOT}/app/secret`]);
  assert.deepEqual(p.filesystem.denyRead, [`${HOME}/.ssh`]);
  assert.deepEqual({ autoAllow: p.autoAllow, allowUnsandboxed: p.allowUnsandboxed, failIfUnavailable: p.failIfUnavailable }, { autoAllow: true, allowUnsandboxed: true, failIfUnavailable: false });
});

test("where a writable directory reaches the user's configuration, it is protected as a project's is", () => {
  assert.deepEqual(policy({ enabled: true, filesystem: { allowWrite: ["~/.cache"] } }).protectedRoots, [CWD, `${HOME}/.cache`, ROOT]);
  for (const allowWrite of ["~/.claude", "~/.claude/debug", "~", "/home"]) {
    const p = policy({ enabled: true, filesystem: { allowWrite: [allowWrite] } });
    assert.ok(p.protectedRoots.includes(HOME), allowWrite);
    assert.ok(p.filesystem.denyWrite.includes(`${HOME}/.claude.json`), allowWrite);
  }
});

test("protected paths: inside .git and .claude where they are directories, the whole path where not; a symbolic link is refused", () => {
  const existing = new Set(["/w/.git", "/w/.claude", "/v/.git"]);
  const links = new Set<string>();
  const files = new Set<string>();
  const lstat = (p: string) => (existing.has(p) || links.has(p) || files.has(p) ? { isSymbolicLink: () => links.has(p), isDirectory: () => existing.has(p) && !files.has(p) && !links.has(p) } : undefined);
  existing.add("/w/.git/commondir");
  const kept = protectedPaths(["/w", "/v"], lstat);
  const absentFromW = [".git/config.worktree", ".git/modules", ".git/worktrees"];
  for (const inside of PROTECTED_PATHS.filter((p) => !absentFromW.includes(p))) {
    assert.ok(kept.includes(`/w/${inside}`), `/w/${inside}`);
  }
  // Missing, git's optional files are left alone: git would fail to read what stood in their place.
  assert.ok(!kept.includes("/w/.git/modules") && !kept.includes("/v/.git/commondir"));
  assert.ok(kept.includes("/v/.claude") && kept.includes("/v/.git/hooks") && kept.includes("/v/.mcp.json"));
  assert.ok(!kept.some((p) => p.startsWith("/v/.claude/")));
  // A worktree's .git is a file naming its git directory (and so is what a killed sandbox leaves):
  // protected whole, with nothing looked for inside it.
  files.add("/u/.git");
  existing.add("/u/.claude");
  const worktree = protectedPaths(["/u"], lstat);
  assert.ok(worktree.includes("/u/.git") && !worktree.some((p) => p.startsWith("/u/.git/")));
  assert.ok(worktree.includes("/u/.claude/settings.json"));
  links.add("/w/.mcp.json");
  assert.throws(() => protectedPaths(["/w"], lstat), /\/w\/\.mcp\.json is a symbolic link/);
  existing.delete("/w/.claude");
  links.add("/w/.claude");
  assert.throws(() => protectedPaths(["/w"], lstat), /\/w\/\.claude is a symbolic link/);
});

test("Read and Edit deny rules bound the sandbox too; a write pattern it cannot follow turns the approvals back on", () => {
  const p = policy({ enabled: true }, { denyRules: rules(["Read(./.env)", "Read(*.pem)", "Edit(/src/locked/**)", "Write(//etc/hosts)", "Bash(rm:*)", "Read"]) });
  assert.deepEqual(p.filesystem.denyRead, [`${CWD}/.env`, `${CWD}/**/*.pem`]);
  assert.deepEqual(p.filesystem.denyWrite, [`${ROOT}/src/locked`, "/etc/hosts"]);
  assert.equal(p.autoAllow, true);
  assert.deepEqual(p.notes, []);
  const loose = policy({ enabled: true }, { denyRules: rules(["Edit(src/**/*.lock)"]) });
  assert.equal(loose.autoAllow, false);
  assert.match(loose.notes[0], /cannot enforce "Edit\(src\/\*\*\/\*\.lock\)"/);
});

test("a deny rule's path is a pattern for the sandbox only where the rule reads it as one", () => {
  // Braces are plain characters in a permission rule, so the sandbox keeps commands from that very path.
  const braces = policy({ enabled: true }, { denyRules: rules(["Edit(/src/{a,b}.ts)", "Read(/src/{c,d}.ts)"]) });
  assert.deepEqual(braces.filesystem.denyWrite, [`${ROOT}/src/{a,b}.ts`]);
  assert.deepEqual(braces.filesystem.denyRead, [`${ROOT}/src/{c,d}.ts`]);
  assert.equal(braces.autoAllow, true);
  assert.deepEqual(braces.notes, []);
  // An escaped wildcard is the character itself: the sandbox is handed that very path, marked as
  // no pattern (it knows no escapes, and reads any `*`, `?`, `[` or `]` in a path as one).
  const escaped = policy({ enabled: true }, { denyRules: rules(["Read(/app/\\[slug\\]/secret)", "Edit(/app/\\[slug\\]/page.tsx)", "Edit(/src/a\\*b.ts)", "Edit(/src/why\\?.md)", "Edit(/src/x]y)"]) });
  assert.deepEqual(escaped.filesystem.denyRead, [{ path: `${ROOT}/app/[slug]/secret`, literal: true }]);
  assert.deepEqual(escaped.filesystem.denyWrite, [
    { path: `${ROOT}/app/[slug]/page.tsx`, literal: true },
    { path: `${ROOT}/src/a*b.ts`, literal: true },
    { path: `${ROOT}/src/why?.md`, literal: true },
    { path: `${ROOT}/src/x]y`, literal: true },
  ]);
  assert.equal(escaped.autoAllow, true);
  assert.deepEqual(escaped.notes, []);
  // In a read pattern, what is escaped reaches the sandbox as a set of that one character.
  const mixed = policy({ enabled: true }, { denyRules: rules(["Read(/app/\\[id\\]/*.env)", "Read(/keys/a\\*\\?/*)", "Read(/odd/a[b*)"]) });
  // So is a `[` that closes no class, which the rule reads as itself.
  assert.deepEqual(mixed.filesystem.denyRead, [`${ROOT}/app/[[]id]/*.env`, `${ROOT}/keys/a[*][?]/*`, `${ROOT}/odd/a[[]b*`]);
  const classes = policy({ enabled: true }, { denyRules: rules(["Read(/keys/id_[a-z]*)", "Edit(/keys/id_?)"]) });
  assert.deepEqual(classes.filesystem.denyRead, [`${ROOT}/keys/id_[a-z]*`]);
  assert.equal(classes.autoAllow, false);
});

test("the directories a rule is resolved against are names, whatever characters they hold", () => {
  const root = "/work/a*b [v2]?";
  const cwd = `${root}/app`;
  const home = "/home/u*";
  const denyRules = toPermissionRules(["Read(./.env)", "Edit(src/locked/**)", "Edit(~/notes.md)", "Edit(/build)", "Read(*.pem)", "Edit(*.lock)"], { root }).rules;
  const p = sandboxPolicy(
    { enabled: true, filesystem: { denyRead: ["secrets", "logs/*.log"], denyWrite: ["~/.profile"] } },
    { cwd, home, projectRoot: root, additionalDirectories: [], allowRules: [], denyRules },
  );
  assert.ok(p);
  assert.deepEqual(p.filesystem.denyRead, [
    { path: `${root}/secrets`, literal: true },
    "/work/a[*]b [[]v2][?]/logs/*.log",
    { path: `${cwd}/.env`, literal: true },
    "/work/a[*]b [[]v2][?]/app/**/*.pem",
  ]);
  assert.deepEqual(p.filesystem.denyWrite, [
    { path: `${home}/.profile`, literal: true },
    { path: `${cwd}/src/locked`, literal: true },
    { path: `${home}/notes.md`, literal: true },
    { path: `${root}/build`, literal: true },
  ]);
  assert.deepEqual(p.filesystem.allowWrite, [{ path: cwd, literal: true }, p.tmpDir]);
  // Only the rule that is a pattern by its own text goes unenforced.
  assert.equal(p.autoAllow, false);
  assert.equal(p.notes.length, 1);
  assert.match(p.notes[0], /cannot enforce "Edit\(\*\.lock\)" \(/);
});

test("paths a host hides stay hidden from commands, but for the working directories inside them", () => {
  const p = policy({ enabled: true, filesystem: { denyRead: ["~/.aws"] } }, { cwd: "/data/workspaces/u/s", projectRoot: "/data/workspaces/u/s", additionalDirectories: ["/srv/shared"], hidden: ["/data"] });
  assert.deepEqual(p.filesystem.denyRead, ["/data", `${HOME}/.aws`]);
  assert.deepEqual(p.filesystem.allowRead, ["/data/workspaces/u/s"]);
  assert.deepEqual(policy({ enabled: true }).filesystem.allowRead, []);
});

test("allowed domains come from the settings and WebFetch(domain:…) allow rules, less those denied", () => {
  const p = policy(
    { enabled: true, network: { allowedDomains: ["registry.npmjs.org", "*.github.com", "api.github.com", "example.com"], deniedDomains: ["*.example.com"] } },
    { allowRules: rules(["WebFetch(domain:docs.python.org)", "WebFetch", "Bash(npm test)"]), denyRules: rules(["WebFetch(domain:api.github.com)"]) },
  );
  // *.example.com denies subdomains only: example.com itself stays allowed. A wildcard that would
  // cover a denied host cannot be given to the sandbox: it is left out, and the run is told.
  assert.deepEqual(p.network.allowedDomains, ["registry.npmjs.org", "example.com", "docs.python.org"]);
  assert.match(p.notes[0], /leaves \*\.github\.com out of the allowed domains: it cannot allow it while denying api\.github\.com/);
});

test("excluded commands, and calls that ask to leave the sandbox where that is allowed, run outside it", () => {
  const p = policy({ enabled: true, excludedCommands: ["docker", "npm run deploy"] });
  assert.equal(runsInSandbox("npm test", undefined, p), true);
  assert.equal(runsInSandbox("docker ps", undefined, p), false);
  assert.equal(runsInSandbox("  docker   build .", undefined, p), false);
  assert.equal(runsInSandbox("dockerd", undefined, p), true);
  assert.equal(runsInSandbox("npm run deploy --prod", undefined, p), false);
  assert.equal(runsInSandbox("npm run build", undefined, p), true);
  assert.equal(runsInSandbox("npm test", true, p), false);
  assert.equal(runsInSandbox("npm test", true, policy({ enabled: true, allowUnsandboxedCommands: false })), true);
  assert.equal(runsInSandbox("npm test", undefined, undefined), false);
});

function context(sandbox: SandboxPolicy | undefined, options: { mode?: PermissionMode; ask?: string[]; deny?: string[]; allow?: string[] } = {}): PermissionContext {
  return {
    mode: options.mode ?? "default",
    rules: { allow: rules(options.allow ?? []), ask: rules(options.ask ?? []), deny: rules(options.deny ?? []) },
    cwd: CWD,
    home: HOME,
    additionalDirectories: [],
    ...(sandbox && { sandbox }),
  };
}

const bash = (command: string, extra: Record<string, unknown> = {}) => ({ name: "Bash", input: { command, ...extra } });

test("a command the sandbox runs needs no approval; rules, plan mode and leaving the sandbox still decide", () => {
  const on = policy({ enabled: true, excludedCommands: ["docker"] });
  assert.equal(decide(bash("npm install && npm test"), context(undefined)).behavior, "ask");
  const allowed = decide(bash("npm install && npm test"), context(on));
  assert.equal(allowed.behavior, "allow");
  assert.match(allowed.reason, /runs in the sandbox/);
  // Writes outside the working directories: the sandbox refuses them itself.
  assert.equal(decide(bash("touch /etc/x"), context(on)).behavior, "allow");

  assert.equal(decide(bash("npm publish"), context(on, { ask: ["Bash(npm publish)"] })).behavior, "ask");
  assert.equal(decide(bash("rm -rf build"), context(on, { deny: ["Bash(rm:*)"] })).behavior, "deny");
  assert.equal(decide(bash("npm test"), context(on, { mode: "plan" })).behavior, "deny");
  assert.equal(decide(bash("npm test"), context(on, { mode: "dontAsk" })).behavior, "allow");
  const excluded = decide(bash("docker ps"), context(on));
  assert.equal(excluded.behavior, "ask");
  assert.match(excluded.reason, /^The settings run this command outside the sandbox \(sandbox\.excludedCommands\)\. /);
  const leaving = decide(bash("npm test", { dangerouslyDisableSandbox: true }), context(on));
  assert.equal(leaving.behavior, "ask");
  assert.match(leaving.reason, /^The command asks to run outside the sandbox\. /);
});

test("outside the sandbox, even a read-only command asks: what ran unasked inside may have prepared it", () => {
  const on = policy({ enabled: true, excludedCommands: ["git"] });
  // Without the sandbox, git status runs unasked (it only reads).
  assert.equal(decide(bash("git status"), context(undefined)).behavior, "allow");
  assert.equal(decide(bash("git status"), context(on)).behavior, "ask");
  assert.equal(decide(bash("ls", { dangerouslyDisableSandbox: true }), context(on)).behavior, "ask");
  // An allow rule is the user's word for an excluded command; leaving the sandbox still asks.
  assert.equal(decide(bash("git status"), context(on, { allow: ["Bash(git status)"] })).behavior, "allow");
  assert.equal(decide(bash("npm test", { dangerouslyDisableSandbox: true }), context(on, { allow: ["Bash(npm test)"] })).behavior, "ask");
  assert.equal(decide(bash("git push"), context(on, { deny: ["Bash(git push)"] })).behavior, "deny");
  assert.equal(decide(bash("ls", { dangerouslyDisableSandbox: true }), context(on, { mode: "bypassPermissions" })).behavior, "allow");
  // A sandbox that cannot run here: commands run outside it with the usual approvals.
  assert.equal(decide(bash("git status"), context({ ...on, excludedCommands: [], unavailable: "no bwrap" })).behavior, "allow");
  assert.equal(decide(bash("npm test"), context({ ...on, autoAllow: false })).behavior, "ask");
  assert.equal(decide(bash("npm test"), context({ ...on, unavailable: "bwrap is not installed" })).behavior, "ask");
});

test("a line that cannot be checked is allowed in the sandbox only where no command rule could be dodged", () => {
  const on = policy({ enabled: true });
  const uncheckable = 'npm test "unclosed';
  assert.equal(decide(bash(uncheckable), context(on)).behavior, "allow");
  assert.equal(decide(bash(uncheckable), context(on, { deny: ["Bash(curl:*)"] })).behavior, "ask");
  // So is a command whose program is known only when it runs.
  for (const dodge of ["c=curl; $c http://x", "echo http://x | xargs $(echo curl)", "PATH=/tmp/bin npm test"]) {
    assert.equal(decide(bash(dodge), context(on)).behavior, "allow", dodge);
    assert.equal(decide(bash(dodge), context(on, { deny: ["Bash(curl:*)"] })).behavior, "ask", dodge);
  }
  assert.equal(decide(bash("npm test && c=x; echo $c"), context(on, { deny: ["Bash(curl:*)"] })).behavior, "allow");
});

test("bad sandbox settings are named and left out; the rest of the file loads", () => {
  const { settings, diagnostics } = validateSettings(
    {
      sandbox: {
        enabled: "yes",
        excludedCommands: ["docker", ""],
        network: { allowedDomains: ["https://example.com/path", "ok.example.com"], allowLocalBinding: 1 },
        filesystem: { allowWrite: ["build", 3] },
      },
      model: "m",
    },
    "/p/.claude/settings.json",
  );
  assert.deepEqual(
    diagnostics.map((d) => d.key),
    ["sandbox.enabled", "sandbox.excludedCommands[1]", "sandbox.network.allowedDomains[0]", "sandbox.network.allowLocalBinding", "sandbox.filesystem.allowWrite[1]"],
  );
  assert.match(diagnostics[2].message, /host name such as example\.com/);
  assert.deepEqual(settings.sandbox, { excludedCommands: ["docker"], network: { allowedDomains: ["ok.example.com"] }, filesystem: { allowWrite: ["build"] } });
  assert.equal(settings.model, "m");
});

test("what the host hides, the settings do not make writable or visible again, but for the working directory", () => {
  // The server hides its data directory; the workspace lies in it.
  const p = policy(
    { enabled: true, filesystem: { allowWrite: [`${CWD}/dist`, "/work/store", "../other", "/var/cache/tool"] } },
    { hidden: ["/work"], additionalDirectories: ["/work/sessions/bob"] },
  );
  assert.deepEqual(p.filesystem.allowWrite, [CWD, `${CWD}/dist`, "/var/cache/tool", p.tmpDir]);
  assert.deepEqual(p.filesystem.allowRead, [CWD, `${CWD}/dist`, ROOT]);
  assert.ok(!p.protectedRoots.includes("/work/store"));
  assert.deepEqual(p.notes, ["The sandbox leaves /work/sessions/bob, /work/store, /work/other out of the directories its commands may write: they lie in the server's data directory, which they do not see but for this workspace."]);
});
