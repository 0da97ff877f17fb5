// Plan mode end to end: a project whose settings start every run in plan mode. The model presents
// its plan with ExitPlanMode, the user approves it from a client, and the session leaves plan mode:
// its configuration says so, and its next run may change files (with approval, as in the default
// mode) instead of being refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MinimalState } from "@harness/test-utils";
import { idle, startHarness, userTexts, type Harness } from "./e2e-commands-support.ts";

/** The permission mode in the session's configuration. */
const modeOf = (state: MinimalState) => (state.config as { permissionMode?: string } | undefined)?.permissionMode;

/** The workspace of session `sessionId`, whose project settings start every run in plan mode. */
async function planProject(h: Harness, sessionId: string): Promise<string> {
  const workspace = h.workspace("alice", sessionId);
  await mkdir(join(workspace, ".claude"), { recursive: true });
  await writeFile(join(workspace, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "plan" } }));
  return workspace;
}

const PLAN = "1. Write notes.txt.\n2. Read it back.";

test("an approved plan ends plan mode for the session: the plan is put to the user, and the next run may write", async () => {
  const h = await startHarness();
  try {
    const workspace = await planProject(h, "plan");
    h.fake.push({ toolUses: [{ name: "ExitPlanMode", input: { plan: PLAN } }] }, { text: "Plan approved." });
    const client = await h.connect("plan");
    client.send({ type: "submit", prompt: "add notes" });

    const pending = () => (client.state!.pendingApprovals as { toolCallId: string; toolName: string; description: string }[] | undefined) ?? [];
    await client.waitForState(() => pending().length > 0, 30_000, "the plan to be put to the user");
    const [ask] = pending();
    assert.equal(ask.toolName, "ExitPlanMode");
    assert.match(ask.description, /Write notes\.txt/);
    const call = client.state!.messages[1].toolCalls!.find((c) => c.id === ask.toolCallId)!;
    assert.deepEqual(call.input, { plan: PLAN });
    assert.equal(modeOf(client.state!), undefined);
    assert.match(userTexts(h.fake.requests[0].body), /Plan mode is on/);

    client.send({ type: "approve", toolCallId: ask.toolCallId });
    await client.waitForState(idle, 30_000, "the run to end");
    assert.deepEqual(client.errors, []);
    assert.equal(modeOf(client.state!), "default");
    const approved = client.state!.messages[1].toolCalls!.find((c) => c.id === ask.toolCallId)!;
    assert.equal(approved.status, "complete");
    assert.match(approved.output ?? "", /plan mode is off/);

    // The next run starts in the default mode, not the settings' plan mode: the write asks instead
    // of being refused, and runs once approved.
    h.fake.push({ toolUses: [{ name: "Write", input: { file_path: "notes.txt", content: "ok" } }] }, { text: "Written." });
    const before = h.fake.requests.length;
    client.send({ type: "submit", prompt: "go ahead" });
    await client.waitForState(() => pending().length > 0, 30_000, "the write to ask");
    assert.equal(pending()[0].toolName, "Write");
    assert.doesNotMatch(JSON.stringify(h.fake.requests[before].body.messages.at(-1)), /Plan mode is on/);
    client.send({ type: "approve", toolCallId: pending()[0].toolCallId });
    await client.waitForState((s) => idle(s) && s.messages.length === 4, 30_000, "the second run to end");
    assert.equal(await readFile(join(workspace, "notes.txt"), "utf8"), "ok");
    await client.close();
  } finally {
    await h.close();
  }
});

test("a rejected plan keeps the session in plan mode, and the model hears why", async () => {
  const h = await startHarness();
  try {
    await planProject(h, "plan-no");
    h.fake.push({ toolUses: [{ name: "ExitPlanMode", input: { plan: PLAN } }] }, { text: "I will revise it." });
    const client = await h.connect("plan-no");
    client.send({ type: "submit", prompt: "add notes" });
    const pending = () => (client.state!.pendingApprovals as { toolCallId: string }[] | undefined) ?? [];
    await client.waitForState(() => pending().length > 0, 30_000, "the plan to be put to the user");
    client.send({ type: "deny", toolCallId: pending()[0].toolCallId, reason: "name it notes.md" });
    await client.waitForState(idle, 30_000, "the run to end");
    assert.equal(modeOf(client.state!), undefined);
    assert.match(JSON.stringify(h.fake.requests.at(-1)!.body.messages.at(-1)), /rejected the plan, so plan mode stays on\. Their feedback: name it notes\.md/);
    await client.close();
  } finally {
    await h.close();
  }
});
