import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";
import type { ApprovalDecision, ApprovalRequest } from "../types.ts";

const PLAN = "1. Add notes.txt with the word ok.\n2. Check it is there.";

const write = (id: string, file: string) => ({ toolCalls: [{ id, name: "Write", input: { file_path: file, content: "ok" } }] });
const present = (id: string, plan = PLAN) => ({ toolCalls: [{ id, name: "ExitPlanMode", input: { plan } }] });

/** The tool result the model read in request `n` (0-based) for call `id`. */
function resultOf(requests: { messages: ModelMessage[] }[], n: number, id: string): ToolResultBlock {
  const last = withoutCacheMarks(requests[n].messages).at(-1);
  assert.ok(last && typeof last.content !== "string");
  const block = last.content.find((b): b is ToolResultBlock => b.type === "tool_result" && b.tool_use_id === id);
  assert.ok(block, `request ${n} has no result for ${id}`);
  return block;
}

function textOf(message: ModelMessage | undefined): string {
  if (!message) return "";
  return typeof message.content === "string" ? message.content : message.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

test("plan mode: the model is told with its prompt, may not write, and once the user approves its plan it carries it out", async (t) => {
  const project = await tempProject(t);
  const asked: ApprovalRequest[] = [];
  const { provider, events, result } = await runInProject(
    project,
    [write("toolu_early", "notes.txt"), present("toolu_plan"), write("toolu_w", "notes.txt"), { text: "Done." }],
    {
      permissionMode: "plan",
      approve: async (request) => {
        asked.push(request);
        return { behavior: "allow" };
      },
    },
  );
  assert.equal(result.stopReason, "end_turn");
  assert.match(textOf(withoutCacheMarks(provider.requests[0].messages).at(-1)), /<system-reminder>\nPlan mode is on.*ExitPlanMode/s);

  const early = resultOf(provider.requests, 1, "toolu_early");
  assert.equal(early.is_error, true);
  assert.match(String(early.content), /Plan mode is on: writing to notes\.txt is not allowed until the user approves a plan.*ExitPlanMode/);

  // The plan is put to the user; approved, plan mode is over for the rest of the run.
  assert.equal(asked[0].toolName, "ExitPlanMode");
  assert.deepEqual(asked[0].input, { plan: PLAN });
  assert.match(asked[0].description, /Add notes\.txt/);
  const approved = resultOf(provider.requests, 2, "toolu_plan");
  assert.equal(approved.is_error, undefined);
  assert.match(String(approved.content), /approved your plan, and plan mode is off/);
  assert.deepEqual(
    events.filter((e) => e.type === "mode.changed"),
    [{ type: "mode.changed", permissionMode: "default" }],
  );

  // Now in the default mode: the write asks, as any write does, and runs once allowed.
  assert.deepEqual(asked.map((a) => a.toolName), ["ExitPlanMode", "Write"]);
  assert.equal(resultOf(provider.requests, 3, "toolu_w").is_error, undefined);
  assert.equal(await project.read("notes.txt"), "ok");
});

test("plan mode: a rejected plan keeps plan mode on, and the model reads the user's feedback", async (t) => {
  const project = await tempProject(t);
  const answers: ApprovalDecision[] = [{ behavior: "deny", reason: "Use notes.md instead" }];
  const { provider, events } = await runInProject(project, [present("toolu_plan"), write("toolu_w", "notes.txt"), { text: "Revised." }], {
    permissionMode: "plan",
    approve: async () => answers.shift() ?? { behavior: "allow" },
  });
  const rejected = resultOf(provider.requests, 1, "toolu_plan");
  assert.equal(rejected.is_error, true);
  assert.match(String(rejected.content), /rejected the plan, so plan mode stays on\. Their feedback: Use notes\.md instead/);
  assert.equal(resultOf(provider.requests, 2, "toolu_w").is_error, true, "the write is still refused");
  assert.equal(await project.exists("notes.txt"), false);
  assert.equal(events.some((e) => e.type === "mode.changed"), false);
});

test("plan mode without anyone to ask: the model is told to give the plan as its answer, and nothing changes", async (t) => {
  const project = await tempProject(t);
  const { provider, events } = await runInProject(project, [present("toolu_plan"), { text: PLAN }], { permissionMode: "plan" });
  const refused = resultOf(provider.requests, 1, "toolu_plan");
  assert.equal(refused.is_error, true);
  assert.match(String(refused.content), /No one can approve a plan in this run.*final reply/);
  assert.equal(events.some((e) => e.type === "mode.changed"), false);
});

test("ExitPlanMode outside plan mode changes nothing and says there is no plan to approve", async (t) => {
  const project = await tempProject(t);
  let asked = 0;
  const { provider, events } = await runInProject(project, [present("toolu_plan"), { text: "ok" }], {
    approve: async () => {
      asked++;
      return { behavior: "allow" };
    },
  });
  const answer = resultOf(provider.requests, 1, "toolu_plan");
  assert.equal(answer.is_error, true);
  assert.match(String(answer.content), /Plan mode is not on/);
  assert.equal(asked, 0);
  assert.equal(events.some((e) => e.type === "mode.changed"), false);
});

test("ExitPlanMode refuses an empty plan before anyone is asked", async (t) => {
  const project = await tempProject(t);
  let asked = 0;
  const { provider } = await runInProject(project, [present("toolu_plan", "   "), { text: "ok" }], {
    permissionMode: "plan",
    approve: async () => {
      asked++;
      return { behavior: "allow" };
    },
  });
  const answer = resultOf(provider.requests, 1, "toolu_plan");
  assert.equal(answer.is_error, true);
  assert.match(String(answer.content), /Invalid arguments for ExitPlanMode:\n- parameter "plan": must not be empty/);
  assert.equal(asked, 0);
});

test("sub-agents have no ExitPlanMode", async (t) => {
  const project = await tempProject(t);
  const { provider } = await runInProject(project, [
    { toolCalls: [{ id: "toolu_task", name: "Task", input: { subagent_type: "general-purpose", description: "look", prompt: "Look around" } }] },
    { text: "Looked." },
    { text: "ok" },
  ]);
  const names = (n: number) => provider.requests[n].tools?.map((tool) => tool.name) ?? [];
  assert.ok(names(0).includes("ExitPlanMode"));
  assert.ok(!names(1).includes("ExitPlanMode"), `the sub-agent was offered ${names(1).join(", ")}`);
});
