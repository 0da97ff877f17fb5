// HarnessServer.adoptTranscript: a conversation kept as a transcript becomes a session a client
// opens and goes on with; a session open now is left as it is.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TranscriptMessage } from "@harness/protocol";
import { call, frameRecorder, waitFor, withFakeServer } from "../test-helpers.ts";

const transcript: TranscriptMessage[] = [
  { role: "user", content: "what is here?" },
  { role: "assistant", content: [{ type: "text", text: "Two files." }] },
];

test("an adopted transcript is a session's conversation, its title kept when it replaces one, and an open session is refused", async () => {
  await withFakeServer({}, async (server) => {
    await server.adoptTranscript("ann", "kept-run", transcript);
    const read = await call(server, "GET", "/sessions/kept-run?userId=ann");
    assert.equal(read.status, 200);
    assert.deepEqual(
      read.body.state.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      [["user", "what is here?"], ["assistant", "Two files."]],
    );
    assert.equal((await call(server, "PATCH", "/sessions/kept-run", { userId: "ann", title: "Kept" })).status, 200);
    const longer: TranscriptMessage[] = [...transcript, { role: "user", content: "and now?" }, { role: "assistant", content: "Three." }];
    await server.adoptTranscript("ann", "kept-run", longer);
    const again = await call(server, "GET", "/sessions/kept-run?userId=ann");
    assert.deepEqual(again.body.state.messages.map((m: { id: string }) => m.id).slice(0, 2), read.body.state.messages.map((m: { id: string }) => m.id), "the messages it had keep their ids");
    assert.equal(again.body.state.messages.length, 4);
    const listed = (await call(server, "GET", "/sessions?userId=ann")).body as { sessionId: string; title: string }[];
    assert.deepEqual(listed.map((s) => [s.sessionId, s.title]), [["kept-run", "Kept"]]);

    const open = await frameRecorder(`${server.url}/ws?userId=ann&sessionId=kept-run`);
    try {
      await waitFor(() => open.frames.length > 0, "the session's state frame");
      await assert.rejects(server.adoptTranscript("ann", "kept-run", transcript), /session kept-run is open/);
    } finally {
      await open.close();
    }
  });
});
