import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { tempWorkspace } from "../testing/fixtures.ts";
import { loadSettings } from "./load.ts";
import { joinParentTiers, parentTier, withParentTier } from "./parent-tier.ts";

const TIER = "the run's managed settings";

async function place(t: TestContext, machine?: unknown, project?: unknown) {
  const dir = await tempWorkspace(t);
  const managedPath = path.join(dir, "etc", "managed-settings.json");
  const root = path.join(dir, "project");
  await fs.mkdir(path.join(root, ".claude"), { recursive: true });
  if (project !== undefined) await fs.writeFile(path.join(root, ".claude", "settings.json"), JSON.stringify(project));
  if (machine !== undefined) {
    await fs.mkdir(path.dirname(managedPath), { recursive: true });
    await fs.writeFile(managedPath, JSON.stringify(machine));
  }
  return { managedPath, load: (parent: unknown) => loadSettings({ cwd: root, home: path.join(dir, "home"), managedPath, parent: { file: TIER, settings: parent } }) };
}

test("a program's tier keeps what restricts and names what it leaves out", () => {
  const tier = parentTier(
    {
      permissions: { deny: ["Bash"], ask: ["WebFetch"], allow: ["Read"], defaultMode: "plan", disableBypassPermissionsMode: "disable" },
      env: { X: "1" },
      model: "m",
      allowManagedHooksOnly: true,
      allowManagedMcpServersOnly: false,
      deniedMcpServers: [{ serverName: "evil" }],
      sandbox: { enabled: true, network: { allowedDomains: ["a.com"], deniedDomains: ["b.com"] } },
      someFutureKey: 1,
    },
    TIER,
  );
  assert.deepEqual(tier.settings, {
    permissions: { deny: ["Bash"], ask: ["WebFetch"], disableBypassPermissionsMode: "disable" },
    allowManagedHooksOnly: true,
    deniedMcpServers: [{ serverName: "evil" }],
    sandbox: { enabled: true, network: { deniedDomains: ["b.com"] } },
  });
  assert.deepEqual(tier.ignored.sort(), ["allowManagedMcpServersOnly", "env", "model", "permissions.allow", "permissions.defaultMode", "sandbox.network.allowedDomains", "someFutureKey"]);
  assert.deepEqual(tier.problems, []);
});

test("a program's disableAllHooks binds as allowManagedHooksOnly; a malformed restriction is a problem naming its key", () => {
  assert.deepEqual(parentTier({ disableAllHooks: true }, TIER).settings, { allowManagedHooksOnly: true });
  const bad = parentTier({ permissions: { deny: "Bash" }, allowManagedHooksOnly: "yes", deniedMcpServers: [{ name: "x" }] }, TIER);
  assert.deepEqual(
    bad.problems.map((p) => p.key),
    ["permissions.deny", "allowManagedHooksOnly", "deniedMcpServers[0]"],
  );
});

test("with no managed-settings.json the program's tier is the managed tier: its rules hold and outrank the project's", async (t) => {
  const env = await place(t, undefined, { permissions: { allow: ["Bash"] }, allowManagedHooksOnly: false });
  const loaded = await env.load({ permissions: { deny: ["Bash(rm:*)"] }, allowManagedHooksOnly: true });
  assert.deepEqual(
    loaded.sources.map((s) => [s.scope, s.path]),
    [["project", loaded.sources[0]!.path], ["managed", TIER]],
  );
  assert.deepEqual(loaded.permissions.deny.map((r) => [r.text, r.source]), [["Bash(rm:*)", TIER]]);
  assert.equal(loaded.locks.managedHooksOnly, true);
});

test("a managed-settings.json drops the program's tier, saying so, unless it says parentSettingsBehavior merge", async (t) => {
  const dropped = await (await place(t, { permissions: { deny: ["WebFetch"] } })).load({ permissions: { deny: ["Bash"] } });
  assert.deepEqual(dropped.permissions.deny.map((r) => r.text), ["WebFetch"]);
  assert.match(dropped.diagnostics.map((d) => `${d.file}: ${d.message}`).join("\n"), /the run's managed settings: not applied: the machine's managed settings .* "parentSettingsBehavior": "merge"/);

  const env = await place(t, { parentSettingsBehavior: "merge", permissions: { deny: ["WebFetch"] }, allowedMcpServers: [{ serverName: "ok" }] });
  const merged = await env.load({ permissions: { deny: ["Bash"] }, allowedMcpServers: [{ serverName: "mine" }], deniedMcpServers: [{ serverName: "evil" }] });
  assert.deepEqual(merged.permissions.deny.map((r) => r.text).sort(), ["Bash", "WebFetch"]);
  assert.deepEqual(merged.settings.allowedMcpServers, [{ serverName: "ok" }], "the machine's allowlist is not widened");
  assert.deepEqual(merged.settings.deniedMcpServers, [{ serverName: "evil" }]);
  assert.equal(merged.sources.filter((s) => s.scope === "managed").length, 1);
});

test("a restriction Claude Code takes from a program's tier but the harness does not enforce is a problem naming it, not a key said to loosen", () => {
  const tier = parentTier(
    {
      sandbox: { network: { allowManagedDomainsOnly: true }, filesystem: { allowManagedReadPathsOnly: true } },
      permissions: { disableAutoMode: "disable", denyInsteadOfPrompting: true },
      deniedModels: ["claude-haiku-4-5"],
      disableSkillShellExecution: true,
    },
    TIER,
  );
  assert.deepEqual(tier.problems.map((p) => p.key).sort(), [
    "deniedModels",
    "disableSkillShellExecution",
    "permissions.denyInsteadOfPrompting",
    "permissions.disableAutoMode",
    "sandbox.filesystem.allowManagedReadPathsOnly",
    "sandbox.network.allowManagedDomainsOnly",
  ]);
  assert.match(tier.problems[0]!.message, /a restriction harness does not enforce/);
  assert.deepEqual(tier.ignored, []);
  // Their values that restrict nothing are left out as any other.
  const loose = parentTier({ sandbox: { network: { allowManagedDomainsOnly: false } }, disableSkillShellExecution: false }, TIER);
  assert.deepEqual(loose.problems, []);
  assert.deepEqual(loose.ignored.sort(), ["disableSkillShellExecution", "sandbox.network.allowManagedDomainsOnly"]);
});

test("a program's disableAllHooks binds whatever its value but false and \"false\"", () => {
  for (const value of ["true", 1, "yes"]) assert.deepEqual(parentTier({ disableAllHooks: value }, TIER).settings, { allowManagedHooksOnly: true }, JSON.stringify(value));
  for (const value of [false, "false"]) {
    const tier = parentTier({ disableAllHooks: value }, TIER);
    assert.deepEqual(tier.settings, {});
    assert.deepEqual(tier.ignored, ["disableAllHooks"]);
  }
});

test("a program's availableModels is kept as a restriction, and the machine's or the first tier's list is not widened by it", () => {
  assert.deepEqual(parentTier({ availableModels: ["sonnet"], enforceAvailableModels: true, model: "opus" }, TIER).settings, { availableModels: ["sonnet"], enforceAvailableModels: true });
  assert.deepEqual(parentTier({ availableModels: "sonnet" }, TIER).problems.map((p) => p.key), ["availableModels"]);
  assert.deepEqual(joinParentTiers({ availableModels: ["haiku"] }, { availableModels: ["opus"] }), { availableModels: ["haiku"] });
  const machine = { scope: "managed" as const, path: "/etc/m.json", settings: { parentSettingsBehavior: "merge", availableModels: ["haiku"] } };
  const merged = withParentTier([machine], { file: TIER, settings: { availableModels: ["opus"] } }, []);
  assert.deepEqual(merged[0]!.settings.availableModels, ["haiku"]);
});

test("two tiers of one program joined: the first's allowedMcpServers holds, the second's only where the first has none", () => {
  const first = { allowedMcpServers: [{ serverName: "a" }], deniedMcpServers: [{ serverName: "x" }] };
  const second = { allowedMcpServers: [{ serverName: "b" }], deniedMcpServers: [{ serverName: "y" }] };
  assert.deepEqual(joinParentTiers(first, second), { allowedMcpServers: [{ serverName: "a" }], deniedMcpServers: [{ serverName: "x" }, { serverName: "y" }] });
  assert.deepEqual(joinParentTiers({}, second), second);
});

test("a program's tier whose object holding restrictions is malformed is a problem naming it, not a key left out", () => {
  for (const [raw, key] of [
    [{ sandbox: "on" }, "sandbox"],
    [{ sandbox: { network: ["b.com"] } }, "sandbox.network"],
  ] as const) {
    const tier = parentTier(raw, TIER);
    assert.deepEqual(tier.problems.map((p) => p.key), [key], JSON.stringify(raw));
    assert.deepEqual(tier.ignored, []);
  }
});

test("one program's tier read on every turn: each turn applies it to the files as they are then, and says its problems again", async (t) => {
  const env = await place(t);
  const tier = { permissions: { deny: ["Bash(rm:*)"], allow: ["Read"] }, deniedModels: ["opus"] };
  const problems = (loaded: Awaited<ReturnType<typeof env.load>>) => loaded.diagnostics.filter((d) => d.file === TIER).map((d) => d.key);
  const first = await env.load(tier);
  assert.deepEqual(first.permissions.deny.map((r) => r.text), ["Bash(rm:*)"]);
  assert.deepEqual(first.permissions.allow, [], "what loosens is left out");
  assert.deepEqual(problems(first), ["deniedModels"]);
  first.sources.find((s) => s.scope === "managed")!.settings.permissions!.deny!.push("Edit");

  await fs.mkdir(path.dirname(env.managedPath), { recursive: true });
  await fs.writeFile(env.managedPath, JSON.stringify({ parentSettingsBehavior: "merge", permissions: { deny: ["WebFetch"] } }));
  const second = await env.load(tier);
  assert.deepEqual(second.permissions.deny.map((r) => r.text).sort(), ["Bash(rm:*)", "WebFetch"], "beneath the file now there, and untouched by what a caller did to the first turn's");
  assert.deepEqual(problems(second), ["deniedModels"]);

  await fs.writeFile(env.managedPath, JSON.stringify({ permissions: { deny: ["WebFetch"] } }));
  const third = await env.load(tier);
  assert.deepEqual(third.permissions.deny.map((r) => r.text), ["WebFetch"]);
  assert.deepEqual(tier, { permissions: { deny: ["Bash(rm:*)"], allow: ["Read"] }, deniedModels: ["opus"] }, "the tier given is left as it was");
});
