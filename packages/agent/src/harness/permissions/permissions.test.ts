import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import type { ApprovalRequest } from "../../types.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

/** The tool results the model got back after its first reply. */
function firstResults(requests: { messages: ModelMessage[] }[]): ToolResultBlock[] {
  return resultsIn(withoutCacheMarks(requests[1].messages).at(-1));
}

test("settings rules decide real calls: the allowed command runs, the denied one never does", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { allow: ["Bash(touch allowed.txt)"], deny: ["Bash(touch denied.txt)"] } });
  const { provider, result } = await runInProject(project, [
    {
      toolCalls: [
        { id: "toolu_ok", name: "Bash", input: { command: "touch allowed.txt" } },
        { id: "toolu_no", name: "Bash", input: { command: "touch denied.txt" } },
      ],
    },
    { text: "One of them ran." },
  ]);

  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.exists("allowed.txt"), true);
  assert.equal(await project.exists("denied.txt"), false);
  const [ok, no] = firstResults(provider.requests);
  assert.equal(ok.is_error, undefined);
  assert.equal(no.is_error, true);
  assert.match(String(no.content), /denied by the deny rule "Bash\(touch denied\.txt\)"/);
  assert.match(String(no.content), /\.claude\/settings\.json/);
});

test("a call that needs approval is refused with a way out when the run has no one to ask", async (t) => {
  const project = await tempProject(t);
  const { provider, events } = await runInProject(project, [
    { toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: "notes.md", content: "hello" } }] },
    { text: "I could not write it." },
  ]);

  const [block] = firstResults(provider.requests);
  assert.equal(block.is_error, true);
  assert.match(String(block.content), /^Permission to use Write was not granted: this run has no one to approve it \(/);
  assert.match(String(block.content), /Allow it with --allowedTools or in \.claude\/settings\.json, or run with --permission-mode acceptEdits or bypassPermissions\./);
  assert.equal(await project.exists("notes.md"), false);
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_w" && e.isError));
});

test("the way out names only the modes that would let that very call through", async (t) => {
  const project = await tempProject(t);
  await project.write(".env", "KEY=secret");
  await project.settings({ permissions: { deny: ["Read(./.env)"] } });
  const { provider } = await runInProject(project, [
    {
      toolCalls: [
        { id: "toolu_rm", name: "Bash", input: { command: "rm -f old.log" } },
        { id: "toolu_grep", name: "Bash", input: { command: "grep -r KEY ." } },
      ],
    },
    { text: "stopped" },
  ]);
  const [rm, grep] = firstResults(provider.requests);
  assert.match(String(rm.content), /Allow it with --allowedTools or in \.claude\/settings\.json, or run with --permission-mode bypassPermissions\.$/, "acceptEdits does not run rm");
  assert.match(String(grep.content), /Allow it with --allowedTools or in \.claude\/settings\.json\.$/, "a recursive read past a Read deny rule asks in every mode");
  assert.doesNotMatch(String(grep.content), /KEY=secret/);
});

test("WebFetch does not follow a redirect within the site to a host a deny rule names", async (t) => {
  const project = await tempProject(t);
  const server = http.createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    if (req.url === "/start") res.writeHead(302, { location: `http://www.localhost:${port}/secret` }).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end("the secret page");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  await project.settings({ permissions: { deny: ["WebFetch(domain:www.localhost)"] } });
  const { provider } = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_f", name: "WebFetch", input: { url: `http://localhost:${port}/start`, prompt: "read it" } }] }, { text: "ok" }],
    { permissionMode: "bypassPermissions" },
  );
  const [block] = firstResults(provider.requests);
  assert.equal(block.is_error, true);
  assert.match(String(block.content), new RegExp(`redirected to http://www\\.localhost:${port}/secret, which is not fetched: .*WebFetch\\(domain:www\\.localhost\\)`));
  assert.doesNotMatch(String(block.content), /the secret page/);
});

test("the approver sees what the call will do; allow runs it, deny answers the model with the reason", async (t) => {
  const project = await tempProject(t);
  const asked: ApprovalRequest[] = [];
  const { provider, events } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_yes", name: "Write", input: { file_path: "yes.md", content: "approved" } },
          { id: "toolu_no", name: "Bash", input: { command: "touch no.txt" } },
        ],
      },
      { text: "Done what I was allowed to." },
    ],
    {
      async approve(request) {
        asked.push(request);
        return request.toolName === "Write" ? { behavior: "allow" } : { behavior: "deny", reason: "not on a Friday" };
      },
    },
  );

  assert.deepEqual(
    asked.map((r) => [r.toolUseId, r.toolName, r.description]),
    [
      ["toolu_yes", "Write", "yes.md"],
      ["toolu_no", "Bash", "touch no.txt"],
    ],
  );
  assert.deepEqual(asked[0].input, { file_path: "yes.md", content: "approved" });
  assert.match(asked[1].reason, /needs approval/);
  assert.equal(await project.read("yes.md"), "approved");
  assert.equal(await project.exists("no.txt"), false);
  const [, denied] = firstResults(provider.requests);
  assert.deepEqual(denied, { type: "tool_result", tool_use_id: "toolu_no", content: "The user denied this tool call: not on a Friday", is_error: true });
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_no" && e.isError));
});

test("an approver may change the input; the changed input is validated and used", async (t) => {
  const project = await tempProject(t);
  const { provider } = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: "draft.md", content: "rough" } }] }, { text: "ok" }],
    { approve: async () => ({ behavior: "allow", updatedInput: { file_path: "final.md", content: "polished" } }) },
  );
  assert.equal(await project.read("final.md"), "polished");
  assert.equal(await project.exists("draft.md"), false);
  assert.equal(firstResults(provider.requests)[0].is_error, undefined);
});

test("an approver's changed input still answers to the deny rules: it cannot move a call onto what they refuse", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["Write(secret.md)"] } });
  const { provider } = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: "draft.md", content: "rough" } }] }, { text: "ok" }],
    { approve: async () => ({ behavior: "allow", updatedInput: { file_path: "secret.md", content: "planted" } }) },
  );
  assert.equal(await project.exists("secret.md"), false);
  assert.equal(await project.exists("draft.md"), false);
  const [result] = firstResults(provider.requests);
  assert.equal(result.is_error, true);
  assert.match(String(result.content), /The approved input is refused: .*Write\(secret\.md\)/);
});

test("acceptEdits lets Write run without asking; default mode does not", async (t) => {
  const project = await tempProject(t);
  const write = { toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: "a.txt", content: "A" } }] };
  const asDefault = await runInProject(project, [write, { text: "no" }], { permissionMode: "default" });
  assert.equal(firstResults(asDefault.provider.requests)[0].is_error, true);
  assert.equal(await project.exists("a.txt"), false);

  const asAcceptEdits = await runInProject(project, [write, { text: "yes" }], { permissionMode: "acceptEdits" });
  assert.equal(firstResults(asAcceptEdits.provider.requests)[0].is_error, undefined);
  assert.equal(await project.read("a.txt"), "A");
});

test("the settings' defaultMode applies unless the run names a mode", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { defaultMode: "acceptEdits" } });
  const write = (name: string) => ({ toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: name, content: "x" } }] });

  await runInProject(project, [write("from-settings.txt"), { text: "ok" }]);
  assert.equal(await project.exists("from-settings.txt"), true);
  await runInProject(project, [write("overridden.txt"), { text: "ok" }], { permissionMode: "default" });
  assert.equal(await project.exists("overridden.txt"), false);
});

test("plan mode refuses a command that writes, and says why", async (t) => {
  const project = await tempProject(t);
  const { provider } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_ls", name: "Bash", input: { command: "ls" } },
          { id: "toolu_touch", name: "Bash", input: { command: "touch planned.txt" } },
        ],
      },
      { text: "Here is the plan." },
    ],
    { permissionMode: "plan", approve: async () => ({ behavior: "allow" }) },
  );
  const [ls, touch] = firstResults(provider.requests);
  assert.equal(ls.is_error, undefined);
  assert.equal(touch.is_error, true);
  assert.match(String(touch.content), /Plan mode is on/);
  assert.equal(await project.exists("planned.txt"), false);
});

test("searches leave out files a Read deny rule protects: Grep's lines, files and counts, and Glob's list", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["Read(./.env)", "Read(./secrets/**)"] } });
  await project.write(".env", "API_KEY=hunter2\n");
  await project.write("secrets/prod.txt", "API_KEY=prod-secret\n");
  await project.write("app.ts", "export const API_KEY = load();\n");
  await fs.symlink(path.join(project.root, ".env"), path.join(project.root, "env-link.txt"));
  const { provider } = await runInProject(project, [
    {
      toolCalls: [
        { id: "toolu_lines", name: "Grep", input: { pattern: "API_KEY", output_mode: "content" } },
        { id: "toolu_files", name: "Grep", input: { pattern: "API_KEY" } },
        { id: "toolu_counts", name: "Grep", input: { pattern: "API_KEY", output_mode: "count" } },
        { id: "toolu_glob", name: "Glob", input: { pattern: "**/*.txt" } },
        { id: "toolu_direct", name: "Grep", input: { pattern: "API_KEY", path: ".env", output_mode: "content" } },
      ],
    },
    { text: "Searched." },
  ]);
  const [lines, files, counts, glob, direct] = firstResults(provider.requests).map((block) => String(block.content));
  assert.equal(lines, "app.ts:1:export const API_KEY = load();");
  assert.equal(files, "Found 1 file\napp.ts");
  assert.match(counts, /^app\.ts:1\n\nFound 1 matching line in 1 file\.$/);
  assert.equal(glob, "No files found matching **/*.txt in ..");
  assert.match(direct, /denied by the deny rule "Read\(\.\/\.env\)"/);
  for (const text of [lines, files, counts, glob]) assert.doesNotMatch(text, /hunter2|prod-secret|\.env\b|secrets\/|env-link/);
});

test("the run's own rules (--allowedTools, --disallowedTools) hold beside the settings'; one that does not parse is said", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { allow: ["Bash(touch from-settings.txt)"] } });
  const { provider, result, events } = await runInProject(
    project,
    [
      {
        toolCalls: [
          { id: "toolu_run", name: "Bash", input: { command: "touch from-run.txt" } },
          { id: "toolu_settings", name: "Bash", input: { command: "touch from-settings.txt" } },
          { id: "toolu_denied", name: "Bash", input: { command: "git push origin main" } },
        ],
      },
      { text: "Two ran." },
    ],
    // Deny rules hold in every mode, bypassPermissions included.
    { permissionMode: "bypassPermissions", rules: { allow: ["Bash(touch from-run.txt)"], deny: ["Bash(git push:*)", "bash(oops)"] } },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.equal(await project.exists("from-run.txt"), true);
  assert.equal(await project.exists("from-settings.txt"), true);
  const denied = firstResults(provider.requests)[2];
  assert.equal(denied.is_error, true);
  assert.match(String(denied.content), /denied by the deny rule "Bash\(git push:\*\)".*the run's disallowed tools/s);
  const notices = events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message);
  assert.ok(notices.some((m) => /^The run's permission rule "bash\(oops\)" is left out: "bash" is not a tool name/.test(m)), notices.join("\n"));
});

test("without a permission mode, a run's allow rule lets a call through that would otherwise be refused", async (t) => {
  const project = await tempProject(t);
  const steps = [{ toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: "notes.md", content: "hello" } }] }, { text: "Written." }];
  await runInProject(project, steps, { rules: { allow: ["Write"] } });
  assert.equal(await project.read("notes.md"), "hello");
});

test("acceptEdits does not let the model rewrite a hook script the settings run", async (t) => {
  const project = await tempProject(t);
  const hook = await project.hook("check.sh", "cat > /dev/null\nexit 0");
  await project.settings({ hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: hook }] }] } });
  const planted = `#!/usr/bin/env bash\ntouch "$CLAUDE_PROJECT_DIR/planted.txt"\n`;
  const { provider } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_r1", name: "Read", input: { file_path: ".claude/hooks/check.sh" } }] },
      { toolCalls: [{ id: "toolu_w", name: "Write", input: { file_path: ".claude/hooks/check.sh", content: planted } }] },
      { toolCalls: [{ id: "toolu_r2", name: "Read", input: { file_path: ".claude/settings.json" } }] },
      { text: "done" },
    ],
    { permissionMode: "acceptEdits" },
  );

  const [write] = resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1));
  assert.equal(write.is_error, true);
  assert.match(String(write.content), /needs approval even in acceptEdits mode: the file decides which commands run/);
  assert.equal(await project.exists("planted.txt"), false);
});

test("a recursive grep does not show the model a file a Read deny rule protects", async (t) => {
  const project = await tempProject(t);
  await project.write(".env", "API_KEY=sk-live-123\n");
  await project.write("src/a.ts", "const API_KEY = process.env.API_KEY;\n");
  await project.settings({ permissions: { deny: ["Read(./.env)"] } });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_g", name: "Bash", input: { command: "grep -r API_KEY ." } }] }, { text: "done" }]);

  const [grep] = firstResults(provider.requests);
  assert.equal(grep.is_error, true);
  assert.match(String(grep.content), /Reading \. and everything below it needs approval: the deny rule "Read\(\.\/\.env\)"/);
  assert.doesNotMatch(JSON.stringify(provider.requests), /sk-live-123/);
});

test("a tool-wide deny rule takes the tool away from the model: it is neither offered nor listed as ready, and a call of it by name runs nothing", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["WebFetch", "Agent", "Bash(rm:*)", "Edit"] } });
  let ready: string[] = [];
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_w", name: "WebFetch", input: { url: "http://127.0.0.1:9/", prompt: "p" } }] }, { text: "ok" }], {
    onReady: (info) => (ready = info.tools),
  });
  const offered = (provider.requests[0].tools ?? []).map((tool) => tool.name);
  assert.ok(!offered.includes("WebFetch") && !offered.includes("Task") && !offered.includes("Edit"), `offered ${offered.join(", ")}`);
  assert.ok(offered.includes("Bash") && offered.includes("Write"), "a rule with a specifier, or one that only covers a tool through Edit's group, leaves it offered");
  assert.deepEqual(ready, offered);
  const [result] = firstResults(provider.requests);
  assert.equal(result.is_error, true);
  assert.match(JSON.stringify(result.content), /Unknown tool: WebFetch/);
});

test("a command's ! command and @file under a tool-wide deny rule are refused by that rule, though the model is not offered the tool", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["Bash", "Read"], allow: ["Bash(echo:*)"] } });
  await project.write("notes.txt", "secret");
  await project.write(".claude/commands/st.md", "Status: !`echo ok` and @notes.txt");
  const { provider, events } = await runInProject(project, [{ text: "ok" }], { prompt: "/st" });
  const prompt = String(withoutCacheMarks(provider.requests[0].messages)[0].content);
  assert.match(prompt, /`echo ok` failed: The command "echo ok" is denied by the deny rule "Bash"/);
  assert.match(prompt, /@notes\.txt was not read: Reading notes\.txt is denied by the deny rule "Read"/);
  assert.doesNotMatch(prompt, /Unknown tool|secret/);
  assert.deepEqual(events.flatMap((e) => (e.type === "tool.completed" ? [e.denied] : [])), [true, true]);
  assert.ok(!provider.requests[0].tools?.some((tool) => tool.name === "Bash" || tool.name === "Read"));
});

test("an edit that would fail anyway (its file not read) fails without asking anyone; once read, it is asked", async (t) => {
  const project = await tempProject(t);
  await project.write("notes.md", "old text\n");
  const asked: ApprovalRequest[] = [];
  const { provider, events } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_blind", name: "Edit", input: { file_path: "notes.md", old_string: "old", new_string: "new" } }] },
      { toolCalls: [{ id: "toolu_read", name: "Read", input: { file_path: "notes.md" } }] },
      { toolCalls: [{ id: "toolu_edit", name: "Edit", input: { file_path: "notes.md", old_string: "old", new_string: "new" } }] },
      { text: "Edited." },
    ],
    { approve: async (request) => (asked.push(request), { behavior: "allow" }) },
  );
  const [blind] = firstResults(provider.requests);
  assert.equal(blind.is_error, true);
  assert.match(String(blind.content), /File has not been read yet/);
  assert.deepEqual(asked.map((request) => request.toolUseId), ["toolu_edit"], "only the edit that can succeed is put to the user");
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_blind" && e.isError && !e.denied), "a failure, not a refusal");
  assert.equal(await project.read("notes.md"), "new text\n");
});
