// `harness chat` at a terminal, a line being typed while a reply streams: each delta of the reply
// reaches the terminal in one write, so that no terminal shows the typed line taken off between the
// writes (a flicker at each delta). The chat runs in this process on a terminal of the test's
// making, against a real server process and the fake Anthropic server.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { ioFor, terminalChat } from "../test-support.ts";
import { chatServerForFile } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-writes-");

/** A reply whose chunks go out one at a time, as the test lets them. */
function paced(chunks: string[]) {
  const gates = chunks.map(() => Promise.withResolvers<void>());
  return {
    async *textChunks() {
      for (const [i, chunk] of chunks.entries()) {
        await gates[i].promise;
        yield chunk;
      }
    },
    next: (i: number) => gates[i].resolve(),
    open: () => gates.forEach((gate) => gate.resolve()),
    /** The reply ends only once this is resolved (its last delta is then one of its own). */
    end: Promise.withResolvers<void>(),
  };
}

test("each delta of a reply streamed while a line is typed reaches the terminal in one write, a steer held below it too", async (t) => {
  const chunks = ["Step one", " is done", ", step two", " as well.\nNow", " the last."];
  const reply = paced(chunks);
  server.fake.push({ textChunks: reply.textChunks, hold: reply.end.promise }, { text: "Noted." });
  t.after(() => (reply.open(), reply.end.resolve()));
  const chat = terminalChat(t, server.url, "writes", "paced");
  await chat.sees(/Ctrl\+D leaves/);
  // The row that says the run goes on is drawn again a few times a second (one write each, see
  // chat-working.test.ts): it stays still here, so that the writes counted are the deltas'.
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  chat.type("go\r");
  reply.next(0);
  await chat.sees(/Step one/);
  // A steer is held below the reply until the model reads it; a draft stays typed below.
  chat.type("keep it short\r");
  await chat.sees(/steer: keep it short/);
  chat.type("draft");
  await chat.sees(/draft/);
  await ioFor(50);
  for (const [i, chunk] of chunks.entries()) {
    if (i === 0) continue;
    const before = chat.writes();
    reply.next(i);
    await chat.sees(new RegExp(chunk.trim().split("\n").at(-1)!));
    await ioFor(50);
    assert.equal(chat.writes() - before, 1, `writes for ${JSON.stringify(chunk)}`);
  }
  reply.end.resolve();
  await chat.sees(/Noted\./);
  // The run ends just after its last text, and the working row with it.
  for (const start = Date.now(); chat.rows().some((row) => row.includes("esc to interrupt")) && Date.now() - start < 20_000; ) await ioFor(10);
  const rows = chat.rows();
  assert.deepEqual(rows.slice(rows.indexOf("go") + 1), ["Step one is done, step two as well.", "Now the last.", "↳ steer: keep it short", "Noted.", "draft"], rows.join("\n"));
  chat.end();
  assert.equal(await chat.status, 0);
});
