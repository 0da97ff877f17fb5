// Changing an execution's plan over the Open Harness API: while its run is under way the run's todo
// list becomes the new one and the model reads it with its next request; once it has ended, 409.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, readSse, V1 } from "./open-harness-support.ts";

const todo = (content: string, status: string) => ({ content, status, activeForm: `${content}ing` });
const patch = (body: unknown) => ({ method: "PATCH", body: JSON.stringify(body) });

test("a plan changed while the run waits is the run's list, told to the model at its next turn; a task changed alone too; after the end, 409", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    h.fake.push(
      { toolUses: [{ name: "TodoWrite", input: { todos: [todo("Read the code", "in_progress"), todo("Write the tests", "pending")] } }] },
      // The run waits for this call's approval while the plan is changed.
      { toolUses: [{ name: "Bash", input: { command: "echo hi > hi.txt", description: "write hi.txt" } }] },
      { text: "Following the new plan." },
    );
    const { execution_id: id } = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "plan it" }) })).json();
    await executionWhen(api, id, (e) => Boolean(e.pending_input), "waiting for approval");
    const plan = `${V1}/executions/${id}/plan`;

    // Bad input is named, and changes nothing.
    for (const [body, field] of [
      [{ tasks: [{ content: "", status: "pending" }] }, /tasks\.0\.content|tasks\[0\]\.content/],
      [{ tasks: [{ content: "x", status: "done" }] }, /status/],
      [{ tasks: [{ id: "9", content: "x", status: "pending" }] }, /tasks\[0\]\.id: the plan has no task "9"/],
      [{ tasks: [{ content: "x", status: "pending", order: 1 }, { content: "y", status: "pending" }] }, /order/],
      [{ steps: [] }, /steps/],
    ] as const) {
      const bad = await api(plan, patch(body));
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.match((await bad.json()).error.message, field);
    }

    const changed = await api(plan, patch({ tasks: [
      { id: "2", content: "Write the tests", status: "in_progress", order: 1 },
      { content: "Ship it", status: "pending", order: 2 },
      { id: "1", content: "Read the code", status: "completed", order: 3 },
    ] }));
    assert.equal(changed.status, 200);
    const expected = [
      { id: "1", content: "Write the tests", status: "in_progress", order: 1 },
      { id: "2", content: "Ship it", status: "pending", order: 2 },
      { id: "3", content: "Read the code", status: "completed", order: 3 },
    ];
    assert.deepEqual((await changed.json()).plan.tasks, expected);
    assert.deepEqual((await (await api(plan)).json()).plan.tasks, expected);

    const task = await api(`${plan}/tasks/2`, patch({ status: "in_progress" }));
    assert.equal(task.status, 200);
    assert.deepEqual((await task.json()).task, { id: "2", content: "Ship it", status: "in_progress", order: 2 });
    assert.equal((await api(`${plan}/tasks/7`, patch({ status: "completed" }))).status, 404);
    const empty = await api(`${plan}/tasks/1`, patch({}));
    assert.equal(empty.status, 400);
    assert.match((await empty.json()).error.message, /content, status/);

    // The run goes on; its next request tells the model of the list as it now stands.
    assert.equal((await api(`${V1}/executions/${id}/input`, { method: "POST", body: JSON.stringify({ data: "yes" }) })).status, 200);
    await executionWhen(api, id, (e) => e.status === "completed", "completed");
    const told = JSON.stringify(h.fake.requests[2].body.messages.at(-1));
    assert.match(told, /The user changed your todo list/);
    assert.match(told, /1\. \[in_progress\] Write the tests\\n2\. \[in_progress\] Ship it\\n3\. \[completed\] Read the code/);
    assert.ok(!JSON.stringify(h.fake.requests[1].body).includes("changed your todo list"), "told once, with the next request only");

    // The plan's stream shows the changes made over the API among the run's.
    const changes = (await readSse(await api(`${plan}/stream`))).map((e) => `${e.data.type} ${(e.data.task as { content?: string } | undefined)?.content ?? e.data.task_id}`);
    assert.deepEqual(changes, ["task.added Read the code", "task.added Write the tests", "task.updated Write the tests", "task.updated Ship it", "task.added Read the code", "task.updated Ship it"]);

    // Ended: the plan is the run's, as it left it.
    const late = await api(plan, patch({ tasks: [] }));
    assert.equal(late.status, 409);
    assert.equal((await late.json()).error.operation, "planning.update");
    assert.equal((await api(`${plan}/tasks/1`, patch({ status: "completed" }))).status, 409);
    assert.equal((await (await api(plan)).json()).plan.tasks.length, 3);
    assert.equal((await api(plan, { ...patch({ tasks: [] }), headers: { "x-harness-user": "bob" } })).status, 404);
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.deepEqual(caps.planning.operations, ["planning.get", "planning.listTasks", "planning.stream", "planning.update", "planning.updateTask"]);
  } finally {
    await h.close();
  }
});
