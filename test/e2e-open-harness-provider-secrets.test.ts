// A model server whose error quotes the API key the server hands its runners: the key shows nowhere
// the Open Harness API answers (a sub-agent's result, a direct tool call's output, an execution's
// events, the event feed, the session), through a real server and its real runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1 } from "./open-harness-support.ts";

const KEY = "sk-ant-quoted-0123456789abcdef";
const echoingError = () => ({ kind: "http-error" as const, status: 400, message: `invalid x-api-key ${KEY}` });

test("a model error quoting the runs' API key is shown with the key hidden, in every answer", async () => {
  const h = await startHarness({}, { ANTHROPIC_API_KEY: KEY });
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const SUBS = `${V1}/agents/main/subagents`;
    const answers: [string, string][] = [];

    const { subagent } = await (await api(`${SUBS}${q}`, { method: "POST", body: JSON.stringify({ name: "general-purpose", description: "d" }) })).json();
    h.fake.push(echoingError());
    const delegated = await (await api(`${SUBS}/${subagent.id}/delegate${q}`, { method: "POST", body: JSON.stringify({ task: "hi" }) })).json();
    assert.equal(delegated.status, "failed");
    assert.match(delegated.output, /invalid x-api-key \*\*\*/);
    answers.push(["delegate", JSON.stringify(delegated)]);

    h.fake.push(echoingError());
    const task = { description: "x", prompt: "y", subagent_type: "general-purpose" };
    answers.push(["tools.invoke Task", await (await api(`${V1}/tools/Task/invoke${q}`, { method: "POST", body: JSON.stringify({ input: task }) })).text()]);

    h.fake.push({ toolUses: [{ id: "toolu_key", name: "Task", input: task }] }, echoingError(), echoingError());
    const run = await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "go", session_id: session.id }) });
    const executionId = run.headers.get("x-execution-id");
    answers.push(["execution stream", JSON.stringify(await readSse(run))]);
    answers.push(["execution", await (await api(`${V1}/executions/${executionId}`)).text()]);
    answers.push(["sub-agent result", await (await api(`${SUBS}/toolu_key/result${q}`)).text()]);
    const events = await (await api(`${V1}/events?limit=100`)).text();
    assert.match(events, /"code":"run_failed","message":"Anthropic API error 400[^"]*\*\*\*/);
    answers.push(["events", events]);
    answers.push(["session", await (await api(`/sessions/${session.id}?userId=alice`)).text()]);
    for (const [what, text] of answers) assert.ok(!text.includes(KEY), `${what} shows the key: ${text.slice(Math.max(0, text.indexOf(KEY) - 200), text.indexOf(KEY) + 40)}`);
  } finally {
    await h.close();
  }
});
