// Runs with the sandbox on, through bubblewrap for real: what their Bash commands can and cannot
// touch. scripts/test.sh installs bubblewrap and socat where it can; without them these tests are
// skipped with the reason, except in CI, where they fail.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { after, test, type TestContext } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject, type TempProject } from "../testing/project.ts";
import type { ScriptedStep } from "../testing/scripted-provider.ts";
import { sandboxUnavailable, stopSandbox } from "./runtime.ts";

const unavailable = await sandboxUnavailable();
if (unavailable && process.env.CI) throw new Error(`the sandbox's tests need it to run here: ${unavailable}`);
const skip = unavailable ? `the sandbox cannot run here: ${unavailable}` : false;
after(stopSandbox);

/** What the model got back for each of its first reply's tool calls, by id. */
function results(requests: { messages: ModelMessage[] }[]): Map<string, ToolResultBlock> {
  const message = withoutCacheMarks(requests[1].messages).at(-1);
  assert.ok(message && typeof message.content !== "string");
  return new Map(message.content.filter((b): b is ToolResultBlock => b.type === "tool_result").map((b) => [b.tool_use_id, b]));
}

/** One reply calling Bash with each command (its id the key), then a closing text. */
function calls(commands: Record<string, string | Record<string, unknown>>): ScriptedStep[] {
  const toolCalls = Object.entries(commands).map(([id, input]) => ({ id, name: "Bash", input: typeof input === "string" ? { command: input } : input }));
  return [{ toolCalls }, { text: "Done." }];
}

async function sandboxed(t: TestContext, sandbox: Record<string, unknown> = {}, options: { git?: boolean } = {}): Promise<TempProject> {
  const project = await tempProject(t);
  if (options.git !== false) await project.write(".git/HEAD", "ref: refs/heads/main\n");
  await project.settings({ sandbox: { enabled: true, ...sandbox } });
  return project;
}

test("in the sandbox, commands run without approval and write the project, but nothing outside it", { skip }, async (t) => {
  const project = await sandboxed(t);
  const outside = path.join(project.home, "escape.txt");
  const { provider } = await runInProject(
    project,
    calls({
      inside: "mkdir -p build && echo built > build/out.txt && cat build/out.txt",
      outside: `echo escaped > ${outside}`,
    }),
  );
  const got = results(provider.requests);
  // The model is told of the sandbox, and may ask to leave it; a run without it hears of neither.
  const bash = provider.requests[0].tools?.find((tool) => tool.name === "Bash");
  assert.match(bash?.description ?? "", /Commands run inside a sandbox/);
  assert.ok(JSON.stringify(bash?.input_schema).includes("dangerouslyDisableSandbox"));
  const plain = (await runInProject(await tempProject(t), [{ text: "Hi." }])).provider.requests[0].tools?.find((tool) => tool.name === "Bash");
  assert.doesNotMatch(plain?.description ?? "", /sandbox/);
  assert.ok(!JSON.stringify(plain?.input_schema).includes("dangerouslyDisableSandbox"));
  assert.equal(got.get("inside")?.is_error, undefined);
  assert.equal(got.get("inside")?.content, "built");
  assert.equal(await project.read("build/out.txt"), "built\n");
  assert.equal(got.get("outside")?.is_error, true);
  assert.match(String(got.get("outside")?.content), /bash: line 1: .*: Read-only file system/);
  assert.equal(await project.exists(path.relative(project.root, outside)), false);
});

test("the sandbox keeps commands from the files that configure what runs outside it", { skip }, async (t) => {
  const project = await sandboxed(t);
  await project.write(".mcp.json", '{"mcpServers":{}}');
  const { provider } = await runInProject(
    project,
    calls({
      hook: "mkdir -p .git/hooks && printf '#!/bin/sh\\necho owned\\n' > .git/hooks/pre-commit",
      gitconfig: "printf '[core]\\n\\tfsmonitor = echo owned\\n' >> .git/config",
      settings: `echo '{"hooks":{}}' > .claude/settings.json`,
      local: `echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.local.json`,
      mcp: `echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`,
      command: "mkdir -p .claude/commands && echo owned > .claude/commands/x.md",
      vscode: `mkdir -p .vscode && echo '{"tasks":[]}' > .vscode/tasks.json`,
    }),
  );
  const got = results(provider.requests);
  for (const id of ["hook", "gitconfig", "settings", "local", "mcp", "command", "vscode"]) assert.equal(got.get(id)?.is_error, true, `${id} was refused`);
  assert.equal(await project.exists(".vscode"), false);
  // Nor are the protected paths that did not exist left behind as empty files or directories.
  assert.equal(await project.exists(".git/hooks"), false);
  assert.equal(await project.exists(".git/config"), false);
  assert.equal(await project.exists(".claude/settings.local.json"), false);
  assert.equal(await project.exists(".claude/commands/x.md"), false);
  assert.equal(await project.read(".mcp.json"), '{"mcpServers":{}}');
  assert.doesNotMatch(await project.read(".claude/settings.json"), /hooks/);
});

test("in the sandbox, a command's `cd` holds for the next call, its output and exit code as they were", { skip }, async (t) => {
  const project = await sandboxed(t);
  await project.write("sub/file.txt", "here\n");
  const steps: ScriptedStep[] = [
    { toolCalls: [{ id: "move", name: "Bash", input: { command: "cd sub && cat file.txt; exit 4" } }] },
    { toolCalls: [{ id: "where", name: "Bash", input: { command: "pwd" } }] },
    { text: "Done." },
  ];
  const { provider } = await runInProject(project, steps);
  const result = (n: number) => withoutCacheMarks(provider.requests[n].messages).at(-1)!.content as ToolResultBlock[];
  assert.deepEqual([result(1)[0].content, result(1)[0].is_error], ["here\n\nExit code 4", true]);
  assert.equal(result(2)[0].content, path.join(await fs.realpath(project.root), "sub"));
});

test("the sandbox reaches only the domains the settings and WebFetch rules allow", { skip }, async (t) => {
  // 127.0.0.2 is not in the sandbox's no-proxy list, so requests to it go through the filtering proxy.
  const server = http.createServer((req, res) => res.end(`served ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  t.after(() => server.close());
  const { port } = server.address() as { port: number };
  const fetchWith = (url: string) => `NODE_USE_ENV_PROXY=1 "${process.execPath}" -e 'fetch("${url}").then((r) => r.text()).then(console.log, (e) => console.log("failed:", e.message))'`;
  const direct = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;

  const allowedProject = await sandboxed(t);
  await allowedProject.settings({ permissions: { allow: ["WebFetch(domain:127.0.0.2)"] } }, "local");
  const allowed = results((await runInProject(allowedProject, calls({ fetch: fetchWith(`http://127.0.0.2:${port}/a`), direct }))).provider.requests);
  assert.equal(allowed.get("fetch")?.content, "served /a");
  // Around the proxy there is no way out: the sandbox has a network of its own.
  assert.equal(allowed.get("direct")?.is_error, true);

  const closed = results((await runInProject(await sandboxed(t), calls({ fetch: fetchWith(`http://127.0.0.2:${port}/b`) }))).provider.requests);
  assert.doesNotMatch(String(closed.get("fetch")?.content), /served/);
  // The refusal is named as the sandbox's, with the setting that would allow the domain.
  const refused = String(closed.get("fetch")?.content);
  assert.ok(refused.includes(`The sandbox blocked:\n- deny network-outbound 127.0.0.2:${port} (not an allowed domain)\n`), refused);
  assert.match(refused, /sandbox\.network\.allowedDomains/);
  assert.doesNotMatch(String(allowed.get("fetch")?.content), /The sandbox blocked/);
});

test("leaving the sandbox takes approval; excluded commands run outside it with the usual checks", { skip }, async (t) => {
  const project = await sandboxed(t, { excludedCommands: ["touch"] });
  const outside = path.join(project.home, "outside.txt");
  const asked: string[] = [];
  const { provider } = await runInProject(project, calls({ leave: { command: `echo out > ${outside}`, dangerouslyDisableSandbox: true }, excluded: "touch excluded.txt", bad: { command: "touch bad.txt", dangerouslyDisableSandbox: "yes" } }), {
    approve: async (request) => {
      asked.push(String(request.input.command));
      return { behavior: "allow" };
    },
  });
  const got = results(provider.requests);
  assert.deepEqual(asked.sort(), [`echo out > ${outside}`, "touch excluded.txt"]);
  assert.equal(got.get("leave")?.is_error, undefined);
  assert.equal(await project.exists(path.relative(project.root, outside)), true);
  assert.equal(await project.exists("excluded.txt"), true);
  // A flag that is not a boolean is refused before anything runs or is asked.
  assert.equal(got.get("bad")?.is_error, true);
  assert.match(String(got.get("bad")?.content), /dangerouslyDisableSandbox/);
  assert.equal(await project.exists("bad.txt"), false);
});

test("background commands run in the sandbox too", { skip }, async (t) => {
  const project = await sandboxed(t);
  const outside = path.join(project.home, "bg.txt");
  const steps: ScriptedStep[] = [
    { toolCalls: [{ id: "bg", name: "Bash", input: { command: `echo in > bg-in.txt; echo out > ${outside}`, run_in_background: true } }] },
    // The conversation's background commands end with it: wait for this one within the run.
    { toolCalls: [{ id: "wait", name: "Bash", input: { command: "for i in $(seq 50); do [ -e bg-in.txt ] && break; sleep 0.1; done" } }] },
    { text: "Done." },
  ];
  await runInProject(project, steps);
  assert.equal(await project.read("bg-in.txt"), "in\n");
  assert.equal(await project.exists(path.relative(project.root, outside)), false);
});

test("where there is no .git, no command can make one, not even while another runs", { skip }, async (t) => {
  const project = await sandboxed(t, {}, { git: false });
  const steps: ScriptedStep[] = [
    { toolCalls: [{ id: "bg", name: "Bash", input: { command: "sleep 2", run_in_background: true } }] },
    {
      toolCalls: [
        { id: "init", name: "Bash", input: { command: "git init -q ." } },
        { id: "fill", name: "Bash", input: { command: "mkdir -p .git/refs && echo 'ref: refs/heads/main' > .git/HEAD" } },
      ],
    },
    { text: "Done." },
  ];
  const { provider } = await runInProject(project, steps);
  const message = withoutCacheMarks(provider.requests[2].messages).at(-1);
  assert.ok(message && typeof message.content !== "string");
  for (const block of message.content) if (block.type === "tool_result") assert.equal(block.is_error, true, JSON.stringify(block.content));
  assert.equal(await project.exists(".git"), false);
});

test("commands get a temporary directory of their workspace's own; Read deny rules hide files from them too", { skip }, async (t) => {
  const project = await sandboxed(t);
  await project.write(".env", "SECRET=1\n");
  await project.settings({ permissions: { deny: ["Read(./.env)"] } }, "local");
  const { provider } = await runInProject(project, calls({ tmp: 'f=$(mktemp) && echo ok > "$f" && cat "$f" && dirname "$f"', env: "cat .env" }));
  const got = results(provider.requests);
  const [ok, dir] = String(got.get("tmp")?.content).split("\n");
  assert.equal(ok, "ok");
  assert.match(dir, /harness-sandbox-\d+\/[0-9a-f]{16}$/);
  assert.equal(got.get("env")?.is_error, true);
  assert.doesNotMatch(String(got.get("env")?.content), /SECRET/);
});

test("the MCP servers' OAuth sign-ins are hidden from commands, while the rest of ~/.claude is not", { skip }, async (t) => {
  const project = await sandboxed(t);
  const claude = path.join(project.home, ".claude");
  await fs.mkdir(claude, { recursive: true });
  await fs.writeFile(path.join(claude, "harness-mcp-oauth.json"), '{"servers": {"x": {"tokens": {"access_token": "at-SECRET"}}}}\n', { mode: 0o600 });
  await fs.writeFile(path.join(claude, "notes.txt"), "visible\n");
  const { provider } = await runInProject(project, calls({ tokens: `cat ${claude}/harness-mcp-oauth.json`, notes: `cat ${claude}/notes.txt` }));
  const got = results(provider.requests);
  assert.equal(got.get("tokens")?.is_error, true);
  assert.doesNotMatch(String(got.get("tokens")?.content), /SECRET/);
  assert.equal(got.get("notes")?.content, "visible");
});

test("a protected path that is a symbolic link stops sandboxed commands, saying why", { skip }, async (t) => {
  const project = await sandboxed(t);
  await project.write("cfg/settings.json", "{}");
  await fs.symlink("cfg", path.join(project.root, ".claude-real"));
  await fs.rename(path.join(project.root, ".claude"), path.join(project.root, ".claude-old"));
  await fs.symlink(".claude-old", path.join(project.root, ".claude"));
  const { provider } = await runInProject(project, calls({ swap: "rm .claude && mkdir .claude && echo '{}' > .claude/settings.local.json" }));
  const got = results(provider.requests);
  assert.equal(got.get("swap")?.is_error, true);
  assert.match(String(got.get("swap")?.content), /The command was not run: .*\.claude is a symbolic link/);
  assert.equal((await fs.lstat(path.join(project.root, ".claude"))).isSymbolicLink(), true);
});

test("a repository a sandboxed command nests in the workspace cannot run programs through the harness's git", { skip }, async (t) => {
  const project = await sandboxed(t, {}, { git: false });
  const git = (...args: string[]) => execFileSync("git", ["-C", project.root, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { stdio: "ignore" });
  git("init", "-q");
  git("commit", "-q", "--allow-empty", "-m", "start");
  const owned = path.join(project.home, "owned");
  const plant = `git init -q sub && git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && git -C sub config core.fsmonitor 'touch ${owned}; false' && git add sub`;
  const first = results((await runInProject(project, calls({ plant }))).provider.requests);
  assert.equal(first.get("plant")?.is_error, undefined, String(first.get("plant")?.content));
  // The next run takes its git snapshot (git status) on the host.
  await runInProject(project, [{ text: "Hello." }]);
  assert.equal(await fs.access(owned).then(() => true, () => false), false);
});

test("the empty .git and .claude a killed sandbox left behind are cleared away, and commands run again", { skip }, async (t) => {
  // The sandbox turned on in the user's settings: the project has no .claude directory.
  const project = await tempProject(t);
  await project.settings({ sandbox: { enabled: true } }, "user");
  // What bubblewrap's mount points are when the process that made them was killed before it could
  // remove them.
  await project.write(".claude", "");
  await project.write(".git", "");
  await fs.mkdir(path.join(project.root, ".mcp.json"));
  const { provider } = await runInProject(project, calls({ works: "echo still-works" }));
  const got = results(provider.requests);
  assert.equal(got.get("works")?.is_error, undefined, String(got.get("works")?.content));
  assert.equal(got.get("works")?.content, "still-works");
  assert.equal(await project.exists(".claude"), false);
  assert.equal(await project.exists(".git"), false);
  assert.equal(await project.exists(".mcp.json"), false);
  // The project can have its .claude directory again.
  await project.write(".claude/settings.json", JSON.stringify({ sandbox: { enabled: true } }));
});

test("a command cannot point .git at a config of its own (commondir), and git still works inside", { skip }, async (t) => {
  const project = await sandboxed(t, {}, { git: false });
  execFileSync("git", ["-C", project.root, "init", "-q"]);
  const owned = path.join(project.home, "owned");
  // The two calls run at once: git's lock files may come and go under the copy, which needs only
  // the config and the layout.
  const plant = `{ cp -r .git own 2>/dev/null || true; } && printf '[core]\\n\\tfsmonitor = "touch ${owned}; false"\\n' >> own/config && echo ../own > .git/commondir`;
  const commit = "echo a > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -q -m a && git log --oneline | wc -l";
  const got = results((await runInProject(project, calls({ plant, commit }))).provider.requests);
  assert.equal(got.get("plant")?.is_error, true);
  assert.match(String(got.get("plant")?.content), /\.git\/commondir: Read-only file system/);
  assert.equal(got.get("commit")?.is_error, undefined, String(got.get("commit")?.content));
  assert.equal(got.get("commit")?.content, "1");
  // What stood in for the missing file is gone, and git outside runs nothing of the command's.
  assert.equal(await project.exists(".git/commondir"), false);
  execFileSync("git", ["-C", project.root, "status"], { stdio: "ignore" });
  assert.equal(await fs.access(owned).then(() => true, () => false), false);
});

test("what stands in for missing protected paths is no file git tries to add: git add -A and commit work", { skip }, async (t) => {
  // The sandbox on in the user's settings: the project has no .claude, .mcp.json or .gitmodules.
  const project = await tempProject(t);
  await project.settings({ sandbox: { enabled: true } }, "user");
  execFileSync("git", ["-C", project.root, "init", "-q"]);
  await project.write("a.txt", "a\n");
  const commit = "git add -A && git -c user.name=t -c user.email=t@t commit -q -m a && git show --name-only --format= HEAD";
  const got = results((await runInProject(project, calls({ commit }))).provider.requests);
  assert.equal(got.get("commit")?.is_error, undefined, String(got.get("commit")?.content));
  assert.equal(got.get("commit")?.content, "a.txt");
  for (const missing of [".claude", ".mcp.json", ".gitmodules"]) assert.equal(await project.exists(missing), false, missing);
  assert.equal(execFileSync("git", ["-C", project.root, "status", "--porcelain"], { encoding: "utf8" }), "");
});

test("the hooks directory and the included files a repository's config names are protected as .git/hooks and .git/config are", { skip }, async (t) => {
  const project = await sandboxed(t, {}, { git: false });
  const git = (...args: string[]) => execFileSync("git", ["-C", project.root, ...args], { stdio: "ignore" });
  git("init", "-q");
  // As husky sets it up (its hooks in .husky/_ run the scripts in .husky), and a config shared in
  // the repository.
  git("config", "core.hooksPath", ".husky/_");
  git("config", "include.path", "../shared.gitconfig");
  await project.write(".husky/pre-commit", "#!/bin/sh\necho lint\n", 0o755);
  await project.write("shared.gitconfig", "[alias]\n\tst = status\n");
  const got = results(
    (
      await runInProject(
        project,
        calls({
          hook: "echo 'touch owned' >> .husky/pre-commit",
          newHook: "printf '#!/bin/sh\\ntouch owned\\n' > .husky/post-checkout",
          include: "printf '[core]\\n\\tfsmonitor = touch owned\\n' >> shared.gitconfig",
          other: "echo fine > notes.txt",
        }),
      )
    ).provider.requests,
  );
  for (const id of ["hook", "newHook", "include"]) assert.match(String(got.get(id)?.content), /Read-only file system/, id);
  assert.equal(got.get("other")?.is_error, undefined);
  assert.equal(await project.read(".husky/pre-commit"), "#!/bin/sh\necho lint\n");
  assert.equal(await project.exists(".husky/post-checkout"), false);
  assert.equal(await project.read("shared.gitconfig"), "[alias]\n\tst = status\n");
});

test("a command cannot rewrite the scripts of the project's hooks, which run outside the sandbox", { skip }, async (t) => {
  const project = await sandboxed(t);
  const owned = path.join(project.home, "owned");
  const hook = await project.hook("post.sh", "exit 0");
  await project.settings({ sandbox: { enabled: true }, hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] } });
  const steps: ScriptedStep[] = [
    { toolCalls: [{ id: "plant", name: "Bash", input: { command: `printf '#!/bin/sh\\ntouch ${owned}\\n' > .claude/hooks/post.sh` } }] },
    { toolCalls: [{ id: "again", name: "Bash", input: { command: "echo again" } }] },
    { text: "Done." },
  ];
  const { provider } = await runInProject(project, steps);
  assert.match(JSON.stringify(withoutCacheMarks(provider.requests[1].messages).at(-1)), /Read-only file system/);
  assert.equal(await project.read(".claude/hooks/post.sh"), "#!/usr/bin/env bash\nexit 0\n");
  assert.equal(await fs.access(owned).then(() => true, () => false), false);
});

test("where there is no .claude, no command can write into one, not even while another runs", { skip }, async (t) => {
  const project = await tempProject(t);
  await project.settings({ sandbox: { enabled: true } }, "user");
  const steps: ScriptedStep[] = [
    { toolCalls: [{ id: "bg", name: "Bash", input: { command: "sleep 2", run_in_background: true } }] },
    { toolCalls: [{ id: "fill", name: "Bash", input: { command: "echo '# from a command' > .claude/CLAUDE.md" } }] },
    { text: "Done." },
  ];
  const { provider } = await runInProject(project, steps);
  assert.match(JSON.stringify(withoutCacheMarks(provider.requests[2].messages).at(-1)), /Read-only file system/);
  assert.equal(await project.exists(".claude"), false);
});

test("an Edit deny rule naming a file with a wildcard in its name keeps commands from that file only", { skip }, async (t) => {
  const project = await sandboxed(t);
  await project.write("a*b.ts", "kept\n");
  await project.settings({ permissions: { deny: ["Edit(/a\\*b.ts)", "Edit(/c\\?d.ts)"] } }, "local");
  const { provider } = await runInProject(project, calls({ denied: `f='a*b.ts'; echo changed > "$f"`, missing: `f='c?d.ts'; echo made > "$f"`, other: "echo made > aXb.ts && cat aXb.ts" }));
  const got = results(provider.requests);
  // A write the rule's own check does not see (through a variable); the sandbox is what refuses it.
  assert.equal(got.get("denied")?.is_error, true);
  assert.match(String(got.get("denied")?.content), /Read-only file system/);
  assert.equal(await project.read("a*b.ts"), "kept\n");
  // Nor may one that is not there yet be made.
  assert.equal(got.get("missing")?.is_error, true);
  assert.equal(await project.exists("c?d.ts"), false);
  assert.equal(got.get("other")?.is_error, undefined);
  assert.equal(got.get("other")?.content, "made");
});
