// A server SIGKILLed the moment its runner has the query (the model's first request is under way):
// what the server accepted (a submitted prompt, a resume, a steer the runner took) is on disk, so
// the restarted server shows it and adopts the run its runner went on with, to the end, or shows it
// interrupted when the runner died too. The submit tests start their session's runner with a first
// run: a runner already up gets the query within a millisecond, long before a batched write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MinimalClient, processAlive, startHarnessServer, steerQueued, storedRunnerPid, waitFor } from "@harness/test-utils";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { idle, startHarness, type Harness } from "./e2e-commands-support.ts";

/** A held reply and the function that lets it go. */
function held(): { hold: Promise<void>; release: () => void } {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  return { hold, release };
}

/** SIGKILLs the server, lets the held model reply go, and starts the server again on its port. */
async function killAndRestart(h: Harness, client: MinimalClient, release: () => void): Promise<void> {
  const port = h.server.port;
  await h.server.stop("SIGKILL");
  await client.waitFor((c) => c.closed, 10_000, "the socket to drop");
  release();
  h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env, port });
}

test("a prompt submitted just before the server is killed is there after the restart, and its run finishes", async () => {
  const h = await startHarness();
  try {
    // The session's runner is up already: the query goes out as soon as the prompt is stored.
    h.fake.push({ text: "warmed up" });
    const client = await h.connect("submit-killed");
    client.send({ type: "submit", prompt: "warm up" });
    await client.waitForState(idle, 30_000, "the first run");
    const { hold, release } = held();
    h.fake.push({ text: ["Answered ", "after ", "the ", "restart."], hold });
    const before = h.fake.requests.length;
    client.send({ type: "submit", prompt: "do not lose me" });
    await h.fake.waitForRequests(before + 1, 30_000);
    await killAndRestart(h, client, release);

    const back = await h.connect("submit-killed");
    await back.waitForState(idle, 30_000, "the adopted run to finish");
    const messages = back.state!.messages;
    assert.deepEqual(messages.map((m) => [m.role, m.status, m.content]), [
      ["user", "complete", "warm up"],
      ["assistant", "complete", "warmed up"],
      ["user", "complete", "do not lose me"],
      ["assistant", "complete", "Answered after the restart."],
    ]);
    assert.ok(!back.state!.error, `no error: ${back.state!.error}`);
    assert.equal(h.fake.requests.length, before + 1, "the run was adopted, not started again");
    await back.close();
  } finally {
    await h.close();
  }
});

test("a resume accepted just before the server is killed is there after the restart, and its run finishes", async () => {
  const h = await startHarness();
  try {
    h.fake.push({ text: "the first answer" });
    const first = await h.connect("resumed-from");
    first.send({ type: "submit", prompt: "first question" });
    await first.waitForState(idle, 30_000, "the first run");
    await first.close();

    const { hold, release } = held();
    h.fake.push({ text: "the resumed answer", hold });
    const client = await h.connect("resumes");
    const before = h.fake.requests.length;
    client.send({ type: "resume", prompt: "and then?", sessionId: "resumed-from" });
    await h.fake.waitForRequests(before + 1, 30_000);
    assert.match(JSON.stringify(h.fake.requests[before].body.messages), /the first answer/);
    await killAndRestart(h, client, release);

    const back = await h.connect("resumes");
    await back.waitForState(idle, 30_000, "the adopted run to finish");
    assert.deepEqual(back.state!.messages.map((m) => [m.role, m.status, m.content]), [
      ["user", "complete", "first question"],
      ["assistant", "complete", "the first answer"],
      ["user", "complete", "and then?"],
      ["assistant", "complete", "the resumed answer"],
    ]);
    assert.ok(!back.state!.error, `no error: ${back.state!.error}`);
    assert.equal(h.fake.requests.length, before + 1, "the run was adopted, not started again");
    await back.close();
  } finally {
    await h.close();
  }
});

test("a steer the model read just before the server is killed is there after the restart, where the model saw it", async () => {
  const h = await startHarness();
  try {
    const first = held();
    const second = held();
    h.fake.push(
      { text: "First step.", toolUses: [{ name: "Bash", input: { command: "echo one" } }], hold: first.hold },
      { text: "Steered to the end.", hold: second.hold },
    );
    const client = await h.connect("steer-killed");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "format the code" });
    const before = h.fake.requests.length;
    await h.fake.waitForRequests(before + 1, 30_000);
    client.send({ type: "steer", message: "use tabs, not spaces" });
    // Held until the run has the steer, which it hands to the model next.
    await client.waitForState(steerQueued, 30_000, "the run to hold the steer");
    first.release();
    await h.fake.waitForRequests(before + 2, 30_000);
    assert.match(JSON.stringify(h.fake.requests[before + 1].body.messages), /use tabs, not spaces/);
    await killAndRestart(h, client, second.release);

    const back = await h.connect("steer-killed");
    await back.waitForState(idle, 30_000, "the adopted run to finish");
    assert.deepEqual(back.state!.messages.map((m) => [m.role, m.status, m.content]), [
      ["user", "complete", "format the code"],
      ["assistant", "complete", "First step."],
      ["user", "complete", "use tabs, not spaces"],
      ["assistant", "complete", "Steered to the end."],
    ]);
    assert.ok(!back.state!.error, `no error: ${back.state!.error}`);
    assert.equal(h.fake.requests.length, before + 2, "the run was adopted, not started again");
    await back.close();
  } finally {
    await h.close();
  }
});

test("a prompt whose runner died with the killed server as its run began shows as interrupted after the restart, with its prompt", async () => {
  const h = await startHarness();
  const ids = { userId: "alice", sessionId: "both-killed" };
  try {
    h.fake.push({ text: "warmed up" });
    const client = await h.connect(ids.sessionId);
    client.send({ type: "submit", prompt: "warm up" });
    await client.waitForState(idle, 30_000, "the first run");
    h.fake.push({ text: "never sent", hold: new Promise(() => {}) });
    const before = h.fake.requests.length;
    client.send({ type: "submit", prompt: "lost with its runner?" });
    await h.fake.waitForRequests(before + 1, 30_000);
    const port = h.server.port;
    await h.server.stop("SIGKILL");
    await client.waitFor((c) => c.closed, 10_000, "the socket to drop");
    const runner = storedRunnerPid(h.dataDir, ids);
    assert.ok(runner !== undefined, "the runner is recorded");
    process.kill(runner, "SIGKILL");
    await waitFor(() => !processAlive(runner), "the runner to die", { timeoutMs: 10_000 });
    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env, port });

    const back = await h.connect(ids.sessionId);
    await back.waitForState((s) => s.status !== "running", 15_000, "the run to be written down");
    const messages = back.state!.messages;
    assert.deepEqual(messages.slice(0, 3).map((m) => m.content), ["warm up", "warmed up", "lost with its runner?"]);
    assert.notEqual(messages[3].status, "running");
    assert.match(back.state!.error ?? "", /interrupted/i);
    await back.close();
  } finally {
    await h.close();
  }
});

/** Whether the store of `dataDir` holds `text` in session alice/`sessionId` (its state or a batch),
 * read from the file, as a server started after a SIGKILL would find it. */
function storedText(dataDir: string, sessionId: string, text: string): boolean {
  const db = new DatabaseSync(join(dataDir, "harness.db"), { readOnly: true });
  try {
    const like = `%${text}%`;
    const inState = db.prepare("SELECT 1 FROM sessions WHERE user_id = 'alice' AND session_id = ? AND state LIKE ?").get(sessionId, like);
    const inBatch = db.prepare("SELECT 1 FROM deltas WHERE user_id = 'alice' AND session_id = ? AND ops LIKE ?").get(sessionId, like);
    return Boolean(inState || inBatch);
  } finally {
    db.close();
  }
}

test("a submitted prompt a client has seen is stored already, so a server killed at once still has it after the restart", async () => {
  const h = await startHarness();
  try {
    const client = await h.connect("seen-is-stored");
    const unstored: string[] = [];
    let prompt = "";
    for (let i = 0; i < 8; i++) {
      h.fake.push({ text: `answer ${i}` });
      prompt = `prompt number ${i}`;
      const sent = prompt;
      client.send({ type: "submit", prompt: sent });
      // Checked as the delta that shows the prompt arrives, before anything else can happen.
      await client.waitFor((c) => {
        if (!c.state?.messages.some((m) => m.content === sent)) return false;
        if (!storedText(h.dataDir, "seen-is-stored", sent)) unstored.push(sent);
        return true;
      }, 30_000, `the prompt ${sent} to be shown`);
      if (i < 7) await client.waitForState(idle, 30_000, `run ${i}`);
    }
    assert.deepEqual(unstored, [], "every prompt shown was stored before it was shown");
    await killAndRestart(h, client, () => {});
    const back = await h.connect("seen-is-stored");
    assert.ok(back.state!.messages.some((m) => m.content === prompt), "the last prompt shown is there after the restart");
    await back.close();
  } finally {
    await h.close();
  }
});

test("a steer the run ended without reading while the server was killed goes on as the next prompt after the restart, once", async () => {
  const h = await startHarness();
  try {
    // A Stop hook runs after the loop last looked for steers: a steer sent meanwhile arrives as the
    // run is ending, and the model never reads it.
    const workspace = h.workspace("alice", "steer-unread");
    const stopping = join(workspace, "..", "steer-unread.stopping");
    const go = join(workspace, "..", "steer-unread.go");
    mkdirSync(join(workspace, ".claude"), { recursive: true });
    writeFileSync(join(workspace, ".claude", "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: `touch ${stopping}; while [ ! -e ${go} ]; do sleep 0.05; done` }] }] } }));
    h.fake.push({ text: "Done before reading it." }, { text: "Tabs it is." });
    const client = await h.connect("steer-unread");
    const before = h.fake.requests.length;
    client.send({ type: "submit", prompt: "format the code" });
    await waitFor(() => existsSync(stopping), "the Stop hook to run", { timeoutMs: 30_000 });
    client.send({ type: "steer", message: "use tabs, not spaces" });
    // The run holds it while its hook waits; the hook ends once the server is killed.
    await client.waitForState(steerQueued, 30_000, "the run to hold the steer");
    await killAndRestart(h, client, () => writeFileSync(go, ""));

    const back = await h.connect("steer-unread");
    const users = (s: { messages: { role: string; content: string }[] }) => s.messages.filter((m) => m.role === "user").map((m) => m.content);
    await back.waitForState((s) => idle(s) && users(s).length === 2, 30_000, "the steer's run to finish");
    assert.deepEqual(users(back.state!), ["format the code", "use tabs, not spaces"]);
    assert.equal(back.state!.messages.at(-1)!.content, "Tabs it is.");
    assert.equal(h.fake.requests.length, before + 2);
    assert.match(JSON.stringify(h.fake.requests[before + 1].body.messages), /use tabs, not spaces/);

    // Killed again, the next server does not send it on a second time.
    await killAndRestart(h, back, () => {});
    const third = await h.connect("steer-unread");
    await third.waitForState(idle, 30_000, "the session after a second restart");
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(users(third.state!), ["format the code", "use tabs, not spaces"]);
    assert.equal(h.fake.requests.length, before + 2, "no run started again");
    await third.close();
  } finally {
    await h.close();
  }
});
