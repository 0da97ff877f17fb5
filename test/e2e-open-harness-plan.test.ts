// The Open Harness planning domain: an execution's plan is the todo list its run keeps (the
// TodoWrite tool), read whole, as tasks, or as the changes that made it (changing it: plan-write).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, readSse, V1 } from "./open-harness-support.ts";

const todo = (content: string, status: string) => ({ content, status, activeForm: `${content}ing` });

test("an execution's plan is its run's todo list: whole, as tasks filtered by status, and streamed as the changes that made it", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    h.fake.push(
      { toolUses: [{ name: "TodoWrite", input: { todos: [todo("Read the code", "in_progress"), todo("Write the tests", "pending")] } }] },
      { toolUses: [{ name: "TodoWrite", input: { todos: [todo("Read the code", "completed"), todo("Write the tests", "in_progress"), todo("Run them", "pending")] } }] },
      { text: "Planned." },
    );
    const stream = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "plan it" }) });
    const id = stream.headers.get("x-execution-id")!;
    await readSse(stream);

    const { plan } = await (await api(`${V1}/executions/${id}/plan`)).json();
    assert.equal(plan.execution_id, id);
    assert.deepEqual(plan.tasks, [
      { id: "1", content: "Read the code", status: "completed", order: 1 },
      { id: "2", content: "Write the tests", status: "in_progress", order: 2 },
      { id: "3", content: "Run them", status: "pending", order: 3 },
    ]);
    assert.ok(Date.parse(plan.updated_at));
    const pending = await (await api(`${V1}/executions/${id}/plan/tasks?status=pending`)).json();
    assert.deepEqual(pending.tasks.map((t: { content: string }) => t.content), ["Run them"]);
    assert.equal((await (await api(`${V1}/executions/${id}/plan/tasks`)).json()).tasks.length, 3);

    const changes = await readSse(await api(`${V1}/executions/${id}/plan/stream`));
    assert.deepEqual(
      changes.map((e) => [e.id, e.data.type, (e.data.task as { content?: string } | undefined)?.content, (e.data.task as { status?: string } | undefined)?.status]),
      [
        ["1", "task.added", "Read the code", "in_progress"],
        ["2", "task.added", "Write the tests", "pending"],
        ["3", "task.updated", "Read the code", "completed"],
        ["4", "task.updated", "Write the tests", "in_progress"],
        ["5", "task.added", "Run them", "pending"],
      ],
    );
    const rest = await readSse(await api(`${V1}/executions/${id}/plan/stream`, { headers: { "last-event-id": "4" } }));
    assert.deepEqual(rest, changes.slice(4));

    // A run that keeps no list has an empty plan; bad input is named; what is not done is 501.
    h.fake.push({ text: "No plan." });
    const plain = (await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "just answer" }) })).json()).execution_id;
    await executionWhen(api, plain, (e) => e.status === "completed", "completed");
    assert.deepEqual((await (await api(`${V1}/executions/${plain}/plan`)).json()).plan.tasks, []);
    const bad = await api(`${V1}/executions/${id}/plan/tasks?status=done`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /status/);
    assert.equal((await api(`${V1}/executions/${id}/plan`, { headers: { "x-harness-user": "bob" } })).status, 404);
    const update = await api(`${V1}/executions/${id}/plan`, { method: "PATCH", body: JSON.stringify({ tasks: [] }) });
    assert.equal(update.status, 409);
    assert.equal((await update.json()).error.operation, "planning.update");
  } finally {
    await h.close();
  }
});
