// Permission updates approved in one agent of a run hold for every agent of it: the main agent, the
// sub-agents it starts after, and those running beside.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { ModelRequest, Provider } from "@harness/llm";
import { runInProject, tempProject } from "../../testing/project.ts";
import { scriptedProvider, type ScriptedProvider } from "../../testing/scripted-provider.ts";
import type { PermissionUpdate } from "../../permissions/updates.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../types.ts";

const task = (id: string, prompt: string) => ({ id, name: "Task", input: { description: "Run it", prompt, subagent_type: "general-purpose" } });
const bash = (id: string, command: string) => ({ id, name: "Bash", input: { command } });
const touchRule = (destination: PermissionUpdate["destination"]): PermissionUpdate => ({ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination });

/** An approver that allows every call, giving `updates` with the first, and records what it was asked. */
function approver(updates: PermissionUpdate[]): { asked: string[]; approve: (request: ApprovalRequest) => Promise<ApprovalDecision> } {
  const asked: string[] = [];
  return {
    asked,
    approve: async (request) => {
      asked.push(String(request.input.command ?? request.toolName));
      return asked.length === 1 ? { behavior: "allow", updatedPermissions: updates } : { behavior: "allow" };
    },
  };
}

for (const destination of ["session", "localSettings"] as const) {
  test(`a rule approved inside a sub-agent (destination ${destination}) holds at once for the main agent and the sub-agents after it`, async (t) => {
    const project = await tempProject(t);
    const { asked, approve } = approver([touchRule(destination)]);
    const { result } = await runInProject(
      project,
      [
        { toolCalls: [task("toolu_task1", "Say hi.")] },
        { toolCalls: [bash("toolu_sub1", "touch hi.txt")] },
        { text: "Said hi." },
        { toolCalls: [bash("toolu_main", "touch there.txt")] },
        { toolCalls: [task("toolu_task2", "Say again.")] },
        { toolCalls: [bash("toolu_sub2", "touch again.txt")] },
        { text: "Said again." },
        { text: "All said." },
      ],
      { approve },
    );
    assert.equal(result.stopReason, "end_turn");
    assert.deepEqual(asked, ["touch hi.txt"], "only the first touch is put to the user");
    for (const file of ["hi.txt", "there.txt", "again.txt"]) assert.ok(await project.exists(file), file);
    const local = path.join(project.root, ".claude/settings.local.json");
    if (destination === "localSettings") assert.deepEqual(JSON.parse(await readFile(local, "utf8")).permissions.allow, ["Bash(touch:*)"]);
    else assert.equal(await project.exists(".claude/settings.local.json"), false, "a session's rule is written nowhere");
  });
}

test("a rule the main agent gained mid-run holds for a sub-agent started after it", async (t) => {
  const project = await tempProject(t);
  const { asked, approve } = approver([touchRule("session")]);
  await runInProject(
    project,
    [{ toolCalls: [bash("toolu_main", "touch first.txt")] }, { toolCalls: [task("toolu_task", "Say it.")] }, { toolCalls: [bash("toolu_sub", "touch second.txt")] }, { text: "Said." }, { text: "Done." }],
    { approve },
  );
  assert.deepEqual(asked, ["touch first.txt"]);
});

test("a rule approved inside a sub-agent holds at once for a sub-agent running beside it", async (t) => {
  const project = await tempProject(t);
  const { asked, approve } = approver([touchRule("session")]);
  // Each agent has its own script: the sub-agents' replies are told apart by their prompts. B's
  // Bash call comes once A's has run.
  let aRan: () => void = () => {};
  const aDone = new Promise<void>((resolve) => (aRan = resolve));
  const scripts: Record<string, Provider> = {
    main: scriptedProvider([{ toolCalls: [task("toolu_a", "Task A"), task("toolu_b", "Task B")] }, { text: "Both done." }]),
    a: scriptedProvider([{ toolCalls: [bash("toolu_sub_a", "touch a.txt")] }, { text: "A done." }]),
    b: scriptedProvider([{ toolCalls: [bash("toolu_sub_b", "touch b.txt")] }, { text: "B done." }]),
  };
  const seen = { a: 0 };
  const which = (request: ModelRequest): string => {
    const first = JSON.stringify(request.messages[0] ?? "");
    return first.includes("Task A") ? "a" : first.includes("Task B") ? "b" : "main";
  };
  const provider: ScriptedProvider = {
    name: "scripted",
    requests: [],
    async *stream(request) {
      const agent = which(request);
      if (agent === "a" && ++seen.a === 2) aRan();
      if (agent === "b" && request.messages.length === 1) await aDone;
      yield* scripts[agent]!.stream(request);
    },
  };
  await runInProject(project, provider, { approve });
  assert.deepEqual(asked, ["touch a.txt"]);
  for (const file of ["a.txt", "b.txt"]) assert.ok(await project.exists(file), file);
});

test("a mode an approval inside a sub-agent sets stays that sub-agent's: the main agent's edits still ask", async (t) => {
  const project = await tempProject(t);
  const { asked, approve } = approver([touchRule("session"), { type: "setMode", mode: "acceptEdits", destination: "session" }]);
  await runInProject(
    project,
    [
      { toolCalls: [task("toolu_task", "Make files.")] },
      { toolCalls: [bash("toolu_sub", "touch sub.txt")] },
      { toolCalls: [{ id: "toolu_sub_write", name: "Write", input: { file_path: "sub.md", content: "sub" } }] },
      { text: "Made them." },
      { toolCalls: [bash("toolu_main", "touch main.txt"), { id: "toolu_main_write", name: "Write", input: { file_path: "main.md", content: "main" } }] },
      { text: "Done." },
    ],
    { approve },
  );
  assert.deepEqual(asked, ["touch sub.txt", "Write"], "the rule reaches the main agent, the mode does not");
  for (const file of ["sub.txt", "sub.md", "main.txt", "main.md"]) assert.ok(await project.exists(file), file);
});

test("a PermissionRequest hook's allow with updatedPermissions for a sub-agent's call holds for the main agent's calls after it", async (t) => {
  const project = await tempProject(t);
  const rule = JSON.stringify([touchRule("session")]);
  const decider = await project.hook(
    "decide.sh",
    [
      `input=$(cat)`,
      `printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/asked.log"`,
      `case "$input" in`,
      `  *'"command":"touch sub.txt"'*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":${rule}}}}' ;;`,
      `esac`,
    ].join("\n"),
  );
  await project.settings({ hooks: { PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command: decider }] }] } });
  const { asked, approve } = approver([]);
  await runInProject(
    project,
    [
      { toolCalls: [task("toolu_task", "Make a file.")] },
      { toolCalls: [bash("toolu_sub", "touch sub.txt")] },
      { text: "Made it." },
      { toolCalls: [bash("toolu_main", "touch main.txt")] },
      { text: "Done." },
    ],
    { approve },
  );
  const hookAsked = (await readFile(path.join(project.root, "asked.log"), "utf8")).trim().split("\n").map((line) => (JSON.parse(line) as { tool_input: { command?: string } }).tool_input.command);
  assert.deepEqual(hookAsked, ["touch sub.txt"], "the hook is not asked about touch main.txt");
  assert.deepEqual(asked, [], "nor is the user");
  for (const file of ["sub.txt", "main.txt"]) assert.ok(await project.exists(file), file);
});

test("a deny rule approved inside a sub-agent keeps the file from the main agent's Glob results, as a rule the run started with would", async (t) => {
  const project = await tempProject(t);
  await project.write("secret.txt", "s");
  await project.write("note.txt", "n");
  const deny: PermissionUpdate = { type: "addRules", rules: [{ toolName: "Read", ruleContent: "./secret.txt" }], behavior: "deny", destination: "session" };
  const { approve } = approver([deny]);
  const { provider } = await runInProject(
    project,
    [
      { toolCalls: [task("toolu_task", "Make a file.")] },
      { toolCalls: [bash("toolu_sub", "touch sub.txt")] },
      { text: "Made it." },
      { toolCalls: [{ id: "toolu_glob", name: "Glob", input: { pattern: "*.txt" } }] },
      { text: "Listed." },
    ],
    { approve },
  );
  const listed = JSON.stringify(provider.requests.at(-1)!.messages.at(-1));
  assert.match(listed, /note\.txt/);
  assert.doesNotMatch(listed, /secret\.txt/, "the denied file is not listed");
});

test("a whole-tool deny approved inside a sub-agent takes the tool out of its next request and the main agent's", async (t) => {
  const project = await tempProject(t);
  const deny: PermissionUpdate = { type: "addRules", rules: [{ toolName: "WebFetch" }], behavior: "deny", destination: "session" };
  const { approve } = approver([deny]);
  const { provider } = await runInProject(
    project,
    [{ toolCalls: [task("toolu_task", "Make a file.")] }, { toolCalls: [bash("toolu_sub", "touch sub.txt")] }, { text: "Made it." }, { text: "Done." }],
    { approve },
  );
  const offered = provider.requests.map((request) => (request.tools ?? []).some((tool) => tool.name === "WebFetch"));
  assert.deepEqual(offered, [true, true, false, false], "main, sub-agent, sub-agent after the approval, main after the Task");
});
