// A session's runner process that died between runs (killed, crashed) is not a run that failed:
// a prompt whose query it never took goes to a new runner with the session's conversation and is
// answered as usual.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MinimalClient, processAlive, startHarnessServer, storedRunnerPid, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-died-idle-");

/** The text of the user messages of a recorded model request. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("")));
}

/** A server and a session that has had two runs, so that its runner keeps the conversation and
 * the next query names it by id; `pid`: that runner's process. */
async function afterTwoRuns(t: { after(fn: () => unknown): void }, sessionId: string) {
  const dataDir = await newDataDir();
  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop("SIGKILL"));
  const ids = { userId: "bob", sessionId };
  const client = await MinimalClient.connect(server.url, ids);
  t.after(() => client.close());
  fake().push({ text: "first answer" }, { text: "second answer" });
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the first run");
  client.send({ type: "submit", prompt: "again" });
  await client.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", 30_000, "the second run");
  const pid = storedRunnerPid(dataDir, ids);
  assert.ok(pid !== undefined, "a runner served the runs");
  return { client, pid, runner: () => storedRunnerPid(dataDir, ids) };
}

/** Waits for the third prompt's run to end, and checks that it was answered as usual: once, by a
 * new runner given the whole conversation, the session showing no error. */
async function answeredByNewRunner(session: Awaited<ReturnType<typeof afterTwoRuns>>, calls: number): Promise<void> {
  const { client, pid } = session;
  await client.waitForState((s) => s.status !== "running" && s.messages[5] !== undefined && s.messages[5].status !== "running", 30_000, "the third run to end");
  const state = client.state!;
  assert.equal(state.error, undefined, `the session shows no error: ${state.error}`);
  assert.equal(state.messages[5]?.status, "complete", JSON.stringify(state.messages[5]));
  assert.equal(state.messages[5]?.content, "third answer");
  assert.equal(fake().requests.length, calls + 1, "the prompt went to the model once");
  assert.deepEqual(userTexts(fake().requests[calls]!.body), ["hello", "again", "still there?"], "the new runner had the conversation");
  const second = session.runner();
  assert.ok(second !== undefined && second !== pid, "a new runner served the prompt");
}

test("a prompt whose runner was killed before it took the query is answered by a new runner that has the conversation", async (t) => {
  const session = await afterTwoRuns(t, "died-before-query");
  const { client, pid } = session;
  const calls = fake().requests.length;
  fake().push({ text: "third answer" });
  // The runner is stopped, then killed once the prompt's query has gone to it (the server sends it
  // within moments of the run showing): it dies before it reads the query, while the server still
  // counts on it.
  process.kill(pid, "SIGSTOP");
  client.send({ type: "submit", prompt: "still there?" });
  await client.waitForState((s) => s.messages[5]?.status === "running", 30_000, "the third run to start");
  await new Promise((resolve) => setTimeout(resolve, 500));
  process.kill(pid, "SIGKILL");
  await waitFor(() => !processAlive(pid), "the runner to die");
  await answeredByNewRunner(session, calls);
});

test("a prompt submitted at once after the session's runner was killed between runs is answered by a new runner", async (t) => {
  const session = await afterTwoRuns(t, "died-between-runs");
  const { client, pid } = session;
  const calls = fake().requests.length;
  fake().push({ text: "third answer" });
  process.kill(pid, "SIGKILL");
  client.send({ type: "submit", prompt: "still there?" });
  await answeredByNewRunner(session, calls);
});
