// An agent cloned or exported over the Open Harness API keeps what limits it: a copy of the user's
// agent, or of a built-in one, has the tools it may not use, its permission mode, its turns and its
// hooks, as the runs read them from the copy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadAgentDefinitions } from "@harness/agent/load-agents";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

test("a clone of the user's agent or a built-in one keeps its disallowed tools, permission mode, turns and hooks", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude", "agents"), { recursive: true });
    const guarded = ["---", "name: careful", "description: Reads, never writes", "disallowedTools: [Bash, Write, Edit]", "permissionMode: plan", "maxTurns: 3", "hooks:", "  PreToolUse:", "    - matcher: Read", "      hooks:", "        - type: command", "          command: ./guard.sh", "---", "Look, do not touch."];
    await writeFile(join(home, ".claude", "agents", "careful.md"), guarded.join("\n"));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    for (const [from, to] of [["careful", "careful-copy"], ["Explore", "explorer"]]) assert.equal((await api(`${V1}/agents/${from}/clone${q}`, json("POST", { new_name: to }))).status, 201);
    const workspace = h.workspace("alice", session.id);
    const { agents } = await loadAgentDefinitions({ home: join(h.dataDir, "elsewhere"), projectRoot: workspace, includeBuiltins: false });
    const copy = agents.find((a) => a.name === "careful-copy")!;
    assert.deepEqual([copy.disallowedTools, copy.permissionMode, copy.maxTurns, copy.systemPrompt], [["Bash", "Write", "Edit"], "plan", 3, "Look, do not touch."]);
    assert.deepEqual(Object.keys(copy.hooks ?? {}), ["PreToolUse"]);
    assert.equal(agents.find((a) => a.name === "explorer")!.permissionMode, "plan");
  } finally {
    await h.close();
  }
});
