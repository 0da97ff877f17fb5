import assert from "node:assert/strict";
import { chmod, rm } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { mcpTestServerCommand } from "@harness/test-utils";
import { systemText, withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject, type TempProject } from "../testing/project.ts";
import type { RunReadyInfo } from "../types.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

/** Installs plugin `kit` of marketplace `market` as Claude Code does (its files in the plugin cache,
 * listed in installed_plugins.json) and enables it in the user's settings. Returns its directory. */
async function installKit(project: TempProject, files: Record<string, string>, settings: Record<string, unknown> = {}): Promise<string> {
  const root = path.join(project.home, ".claude", "plugins", "cache", "market", "kit", "1.0.0");
  await project.writeHome(".claude/plugins/cache/market/kit/1.0.0/.claude-plugin/plugin.json", JSON.stringify({ name: "kit", version: "1.0.0", description: "Team kit" }));
  for (const [name, text] of Object.entries(files)) await project.writeHome(path.join(".claude/plugins/cache/market/kit/1.0.0", name), text);
  await project.writeHome(".claude/plugins/installed_plugins.json", JSON.stringify({ version: 2, plugins: { "kit@market": [{ scope: "user", installPath: root, version: "1.0.0" }] } }));
  await project.settings({ enabledPlugins: { "kit@market": true }, ...settings }, "user");
  return root;
}

test("an installed, enabled plugin's command runs as /kit:<name>, ${CLAUDE_PLUGIN_ROOT} standing for its directory; /help and the ready info list it", async (t) => {
  const project = await tempProject(t);
  const root = await installKit(project, { "commands/greet.md": "---\ndescription: Greet someone\nargument-hint: <name>\n---\nGreet $ARGUMENTS using ${CLAUDE_PLUGIN_ROOT}/greeting.txt." });
  let ready: RunReadyInfo | undefined;
  const { provider, result } = await runInProject(project, [{ text: "Hello!" }], { prompt: "/kit:greet Ada", onReady: (info) => (ready = info) });

  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(withoutCacheMarks(provider.requests[0].messages), [{ role: "user", content: `Greet Ada using ${root}/greeting.txt.` }]);
  assert.deepEqual(ready?.plugins, [{ name: "kit", path: root }]);
  assert.ok(ready?.slashCommands.includes("kit:greet"));

  const help = await runInProject(project, [], { prompt: "/help" });
  assert.match(help.result.result, /\/kit:greet <name> — Greet someone \(plugin kit command\)/);
  assert.ok(help.result.result.endsWith(`\n\nPlugins:\n  kit 1.0.0 — Team kit (${root})`), help.result.result);
});

test("a plugin's agent is started by the Task tool as kit:<agent>; a plugin's skill answers to /kit:<skill>", async (t) => {
  const project = await tempProject(t);
  const root = await installKit(project, {
    "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews changes\npermissionMode: bypassPermissions\n---\nYou review code. Checklist: ${CLAUDE_PLUGIN_ROOT}/checklist.md",
    "skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release\n---\nFollow ${CLAUDE_PLUGIN_ROOT}/RELEASE.md",
  });
  const { provider, result, events } = await runInProject(project, [
    { toolCalls: [{ id: "toolu_task", name: "Task", input: { description: "Review", prompt: "Review the diff", subagent_type: "kit:reviewer" } }] },
    { text: "Looks good." },
    { text: "The reviewer says it looks good." },
  ]);

  assert.equal(result.stopReason, "end_turn");
  assert.match(JSON.stringify(provider.requests[0].tools?.find((tool) => tool.name === "Task")), /kit:reviewer: Reviews changes/);
  assert.match(systemText(provider.requests[1]), new RegExp(`You review code\\. Checklist: ${root}/checklist\\.md`));
  assert.deepEqual(resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1)), [{ type: "tool_result", tool_use_id: "toolu_task", content: "Looks good." }]);
  assert.ok(
    events.some((e) => e.type === "notice" && /reviewer\.md \(permissionMode\): permissionMode is ignored in a plugin's agent/.test(e.message)),
    "the plugin agent's permissionMode is said to be ignored",
  );

  const skill = await runInProject(project, [{ text: "Released." }], { prompt: "/kit:release" });
  assert.match(JSON.stringify(skill.provider.requests[0].messages), new RegExp(`Follow ${root}/RELEASE\\.md`));
});

test("a plugin's PreToolUse hook blocks a tool call; it runs with CLAUDE_PLUGIN_ROOT set, and joins the settings' hooks", async (t) => {
  const project = await tempProject(t);
  const root = await installKit(project, {
    "hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"${CLAUDE_PLUGIN_ROOT}/guard.sh"' }] }] } }),
  });
  await project.writeHome(
    ".claude/plugins/cache/market/kit/1.0.0/guard.sh",
    '#!/usr/bin/env bash\ncat > /dev/null\necho "blocked by kit (root $CLAUDE_PLUGIN_ROOT)" >&2\nexit 2\n',
  );
  await chmod(path.join(root, "guard.sh"), 0o755);
  const settingsHook = await project.hook("log.sh", `cat > /dev/null\necho ran >> "$CLAUDE_PROJECT_DIR/settings-hook.log"`);
  await project.settings({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: settingsHook }] }] } });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_b", name: "Bash", input: { command: "touch made.txt" } }] }, { text: "Blocked." }], { permissionMode: "bypassPermissions" });

  const [blocked] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(blocked?.is_error, true);
  assert.match(String(blocked?.content), new RegExp(`blocked by kit \\(root ${root}\\)`));
  assert.equal(await project.exists("made.txt"), false);
  assert.equal(await project.read("settings-hook.log"), "ran\n", "the settings' hook runs too");
});

test("allowManagedHooksOnly keeps a plugin's hooks from running unless the managed settings enable the plugin; disableAllHooks there stops them all", async (t) => {
  const project = await tempProject(t);
  await installKit(project, {
    "hooks/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: 'echo plugin >> "$CLAUDE_PROJECT_DIR/plugin-hook.log"' }] }] } }),
  });
  const managed = path.join(project.home, "managed-settings.json");
  const run = async (settings: Record<string, unknown>) => {
    await project.writeHome("managed-settings.json", JSON.stringify(settings));
    await runInProject(project, [{ toolCalls: [{ id: "toolu_b", name: "Bash", input: { command: "true" } }] }, { text: "ok" }], { permissionMode: "bypassPermissions", managedSettingsPath: managed });
    const ran = await project.exists("plugin-hook.log");
    if (ran) await rm(path.join(project.root, "plugin-hook.log"));
    return ran;
  };
  assert.equal(await run({}), true);
  assert.equal(await run({ allowManagedHooksOnly: true }), false);
  assert.equal(await run({ allowManagedHooksOnly: true, enabledPlugins: { "kit@market": true } }), true);
  assert.equal(await run({ disableAllHooks: true, enabledPlugins: { "kit@market": true } }), false);
});

test("a plugin's stdio MCP server starts without the .mcp.json approval; its tools are mcp__plugin_kit_<server>__<tool>; the managed policy still applies", async (t) => {
  const project = await tempProject(t);
  const { command, args } = mcpTestServerCommand();
  // The server is started through a script of the plugin, which checks the variable it is given.
  const root = await installKit(project, {
    ".mcp.json": JSON.stringify({ mcpServers: { x: { command: "${CLAUDE_PLUGIN_ROOT}/server.sh", args } } }),
    "server.sh": `#!/usr/bin/env bash\n[ -n "$CLAUDE_PLUGIN_ROOT" ] && [ -d "$CLAUDE_PLUGIN_ROOT/.claude-plugin" ] || exit 3\nexec "${command}" "$@"\n`,
  });
  await chmod(path.join(root, "server.sh"), 0o755);
  await project.settings({ permissions: { allow: ["mcp__plugin_kit_x__echo"] } });
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ id: "toolu_echo", name: "mcp__plugin_kit_x__echo", input: { text: "from the plugin" } }] }, { text: "Echoed." }]);

  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1)), [{ type: "tool_result", tool_use_id: "toolu_echo", content: "from the plugin" }]);

  const managed = path.join(project.home, "managed-settings.json");
  await project.writeHome("managed-settings.json", JSON.stringify({ deniedMcpServers: [{ serverName: "plugin:kit:x" }] }));
  const denied = await runInProject(project, [{ text: "ok" }], { managedSettingsPath: managed });
  assert.ok(!denied.provider.requests[0].tools?.some((tool) => tool.name.startsWith("mcp__plugin_kit_x")));
  assert.ok(denied.events.some((e) => e.type === "notice" && /MCP server "plugin:kit:x" .* is not started: it is listed in deniedMcpServers/.test(e.message)));

  await project.writeHome("managed-settings.json", "{}");
  await project.writeHome("managed-mcp.json", JSON.stringify({ mcpServers: {} }));
  const exclusive = await runInProject(project, [{ text: "ok" }], { managedSettingsPath: managed });
  assert.ok(!exclusive.provider.requests[0].tools?.some((tool) => tool.name.startsWith("mcp__plugin_kit_x")));
  assert.ok(exclusive.events.some((e) => e.type === "notice" && /MCP server "plugin:kit:x" is not started: the machine's managed MCP configuration/.test(e.message)));
});

test("a broken plugin is named in a warning and skipped; a plugin given for the run still loads, and the run works", async (t) => {
  const project = await tempProject(t);
  await installKit(project, {});
  await project.writeHome(".claude/plugins/cache/market/kit/1.0.0/.claude-plugin/plugin.json", "{ \"name\": ");
  await project.write("dev/tools/commands/hi.md", "Say hi from tools.");
  const { provider, result, events } = await runInProject(project, [{ text: "Hi." }], { prompt: "/tools:hi", pluginDirs: ["dev/tools", "dev/missing"] });

  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(withoutCacheMarks(provider.requests[0].messages), [{ role: "user", content: "Say hi from tools." }]);
  const warnings = events.filter((e) => e.type === "notice" && e.level === "warning").map((e) => (e.type === "notice" ? e.message : ""));
  assert.ok(warnings.some((m) => /plugin\.json: Plugin kit is not loaded: .*line 1/.test(m)), warnings.join("\n"));
  assert.ok(warnings.some((m) => /Plugin missing is not loaded: its directory does not exist/.test(m)), warnings.join("\n"));
});

test("a project's command or skill named as a plugin's (.claude/commands/kit/greet.md, .claude/skills/kit:release) does not replace the plugin's, and is named in a warning", async (t) => {
  const project = await tempProject(t);
  await installKit(project, {
    "commands/greet.md": "Greet from the plugin.",
    "skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release\n---\nRelease as the plugin says.",
  });
  await project.write(".claude/commands/kit/greet.md", "Greet from the project.");
  await project.write(".claude/skills/kit:release/SKILL.md", "---\nname: kit:release\ndescription: Cut a release\n---\nRelease as the project says.");

  const command = await runInProject(project, [{ text: "Hi." }], { prompt: "/kit:greet" });
  assert.deepEqual(withoutCacheMarks(command.provider.requests[0].messages), [{ role: "user", content: "Greet from the plugin." }]);
  const warnings = command.events.filter((e) => e.type === "notice" && e.level === "warning").map((e) => (e.type === "notice" ? e.message : ""));
  assert.ok(warnings.some((m) => /kit\/greet\.md: Command \/kit:greet is plugin kit's; this file is never used/.test(m)), warnings.join("\n"));
  assert.ok(warnings.some((m) => /kit:release\/SKILL\.md: Skill kit:release is plugin kit's/.test(m)), warnings.join("\n"));

  const skill = await runInProject(project, [{ text: "Released." }], { prompt: "/kit:release" });
  assert.match(JSON.stringify(skill.provider.requests[0].messages), /Release as the plugin says\./);
});

test('a plugin whose directory\'s name holds $(…) or a " runs its hooks\' "${CLAUDE_PLUGIN_ROOT}/…" as that path, not as shell code; two such plugins\' same command both run', async (t) => {
  const project = await tempProject(t);
  const command = 'cat > /dev/null; echo "${CLAUDE_PLUGIN_ROOT}" >> "$CLAUDE_PROJECT_DIR/roots.txt"';
  const dirs = ["a$(touch pwned)", 'b"; touch pwned; "'];
  for (const dir of dirs) await project.write(path.join("dev", dir, "hooks", "hooks.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command }] }] } }));
  const { result } = await runInProject(project, [{ text: "Hi." }], { pluginDirs: dirs.map((dir) => path.join("dev", dir)) });

  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.exists("pwned"), false);
  const roots = (await project.read("roots.txt")).trim().split("\n").sort();
  assert.deepEqual(roots, dirs.map((dir) => path.join(project.root, "dev", dir)).sort());
});
