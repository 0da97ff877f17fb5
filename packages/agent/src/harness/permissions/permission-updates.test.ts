// An approval's permission updates in whole runs: screened (what may not be applied is left out and
// said once), applied to every agent of the run, handed on for the session's later runs, and
// applied again when a later run starts with them.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "@harness/protocol";
import { runInProject, tempProject } from "../../testing/project.ts";
import type { PermissionUpdate } from "../../permissions/updates.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../types.ts";

const task = (id: string, prompt: string) => ({ id, name: "Task", input: { description: "Run it", prompt, subagent_type: "general-purpose" } });
const bash = (id: string, command: string) => ({ id, name: "Bash", input: { command } });
const notices = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "notice" ? [e.message] : []));

const given: PermissionUpdate[] = [
  { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }, { toolName: "bash" }], behavior: "allow", destination: "session" },
  { type: "setMode", mode: "bypassPermissions", destination: "session" },
  { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "git:*push" }], behavior: "deny", destination: "session" },
];

test("an approval's updates inside a sub-agent: what parses holds for the whole run and is handed on; the rest is said once", async (t) => {
  const project = await tempProject(t);
  const asked: string[] = [];
  const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    asked.push(String(request.input.command));
    return asked.length === 1 ? { behavior: "allow", updatedPermissions: given } : { behavior: "deny" };
  };
  const handed: PermissionUpdate[][] = [];
  const { events } = await runInProject(
    project,
    [{ toolCalls: [task("toolu_task", "Make a file.")] }, { toolCalls: [bash("toolu_sub", "touch sub.txt")] }, { text: "Made it." }, { toolCalls: [bash("toolu_main", "touch main.txt")] }, { text: "Done." }],
    { approve, onPermissionUpdates: (updates) => handed.push([...updates]) },
  );

  assert.deepEqual(asked, ["touch sub.txt"], "touch main.txt is let through by the rule approved in the sub-agent");
  assert.ok(await project.exists("main.txt"));
  assert.deepEqual(handed, [[{ ...given[0], rules: [{ toolName: "Bash", ruleContent: "touch:*" }] }]]);
  const said = notices(events);
  assert.equal(said.filter((m) => m.includes('"bash"')).length, 1, said.join("\n"));
  assert.equal(said.filter((m) => m.includes('"Bash(git:*push)"')).length, 1, said.join("\n"));
  assert.equal(said.filter((m) => /setMode bypassPermissions/.test(m)).length, 1, said.join("\n"));
  assert.equal(said.filter((m) => /"bash"|git:\*push|bypassPermissions/.test(m)).length, 3, said.join("\n"));
});

test("a later run starts with the session's updates applied; a rule of them that does not parse is said once and left out", async (t) => {
  const project = await tempProject(t);
  const asked: string[] = [];
  const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    asked.push(String(request.input.command));
    return { behavior: "deny" };
  };
  const { events } = await runInProject(project, [{ toolCalls: [bash("toolu_1", "touch later.txt")] }, { text: "Done." }], { approve, permissionUpdates: given });
  assert.deepEqual(asked, []);
  assert.ok(await project.exists("later.txt"));
  const said = notices(events);
  assert.equal(said.filter((m) => m.includes('"bash"')).length, 1, said.join("\n"));
  assert.equal(said.filter((m) => m.includes('"Bash(git:*push)"')).length, 1, said.join("\n"));
  assert.equal(said.filter((m) => /The mode stays default/.test(m)).length, 1, said.join("\n"));
});
