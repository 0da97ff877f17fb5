import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContentBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import { TEST_PNG_BASE64 } from "@harness/test-utils";
import { assertValidTranscript, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";

const isTestPng = (block: ContentBlock) => block.type === "image" && block.source.type === "base64" && block.source.data === TEST_PNG_BASE64;

/** Steering whose `message` waits from the run's first tool call on, as one typed while it runs. */
function steerAtFirstCall(message: string) {
  const inbox: string[] = [];
  let sent = false;
  return {
    steering: { take: () => inbox.splice(0) },
    onCall: () => {
      if (!sent) inbox.push(message);
      sent = true;
    },
  };
}

test("a picture a steer names with @path reaches the model as an image after the steer's text, read as a prompt's mentions are", async (t) => {
  const project = await tempProject(t);
  await project.write("logo.png", Buffer.from(TEST_PNG_BASE64, "base64"));
  const steer = steerAtFirstCall("Now look at @logo.png");
  const recorded: AgentEvent[] = [];
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "echo one" } }] }, { text: "A logo." }], {
    prompt: "Start.",
    steering: steer.steering,
    emit: (event) => {
      if (event.type === "tool.started") steer.onCall();
      recorded.push(event);
    },
  });
  assert.equal(result.stopReason, "end_turn");
  const content = withoutCacheMarks(provider.requests[1].messages).at(-1)?.content;
  assert.ok(Array.isArray(content), JSON.stringify(content));
  const at = content.findIndex((block) => block.type === "text" && block.text.startsWith("Now look at @logo.png"));
  assert.deepEqual(content[at], { type: "text", text: "Now look at @logo.png\n\nContents of logo.png:\n[an image, attached below]" });
  assert.ok(content.slice(at + 1).some(isTestPng), JSON.stringify(content).slice(0, 400));
  // The user sees the steer as typed, then the Read that attached its file, as a prompt's mention shows.
  const shown = recorded.flatMap((e) => (e.type === "user.message" ? [`user: ${e.text}`] : e.type === "tool.started" ? [`${e.toolName}`] : []));
  assert.deepEqual(shown, ["Bash", "user: Now look at @logo.png", "Read"]);
  // The image stays in the transcript the next run is sent.
  assert.ok(JSON.stringify(result.transcript).includes(TEST_PNG_BASE64));
  assertValidTranscript(result.transcript);
});

test("a file a steer names that a deny rule covers is not read: the model is told why, never its contents", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["Read(./secret.txt)"] } });
  await project.write("secret.txt", "hunter2\n");
  await project.write("notes.txt", "remember the flag\n");
  const steer = steerAtFirstCall("see @notes.txt and @secret.txt");
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "echo one" } }] }, { text: "ok" }], {
    prompt: "Start.",
    steering: steer.steering,
    emit: (event) => {
      if (event.type === "tool.started") steer.onCall();
    },
  });
  const sent = JSON.stringify(withoutCacheMarks(provider.requests[1].messages).at(-1)?.content);
  assert.match(sent, /see @notes\.txt and @secret\.txt\\n\\nContents of notes\.txt:\\n {5}1\\tremember the flag\\n\\n\(@secret\.txt was not read: [^"]*deny rule/);
  assert.doesNotMatch(sent, /hunter2/);
});

test("a file outside the working directories that a steer names is read only with approval, as a prompt's would be", async (t) => {
  const project = await tempProject(t);
  const outside = await project.writeHome("plans.txt", "ship on Monday\n");
  const steer = steerAtFirstCall(`and @${outside}`);
  const asked: string[] = [];
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "echo one" } }] }, { text: "ok" }], {
    prompt: "Start.",
    steering: steer.steering,
    emit: (event) => {
      if (event.type === "tool.started") steer.onCall();
    },
    approve: async (request) => {
      if (request.toolName !== "Read") return { behavior: "allow" };
      asked.push(String(request.input.file_path));
      return { behavior: "deny", message: "Not that one." };
    },
  });
  assert.deepEqual(asked, [outside]);
  const sent = JSON.stringify(withoutCacheMarks(provider.requests[1].messages).at(-1)?.content);
  assert.match(sent, /\(@[^ ]*plans\.txt was not read: The user denied this tool call\.\)/);
  assert.doesNotMatch(sent, /ship on Monday/);
});

test("a run cancelled while a steer's file waits for approval ends cancelled, the steer kept in its transcript", async (t) => {
  const project = await tempProject(t);
  const outside = await project.writeHome("plans.txt", "ship on Monday\n");
  const steer = steerAtFirstCall(`and @${outside}`);
  const controller = new AbortController();
  const { provider, result } = await runInProject(project, [{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "echo one" } }] }, { text: "never asked" }], {
    prompt: "Start.",
    signal: controller.signal,
    steering: steer.steering,
    emit: (event) => {
      if (event.type === "tool.started") steer.onCall();
    },
    approve: async (request) => {
      if (request.toolName !== "Read") return { behavior: "allow" };
      controller.abort();
      return { behavior: "deny", message: "Cancelled." };
    },
  });
  assert.equal(result.stopReason, "aborted");
  assert.equal(provider.requests.length, 1);
  assert.match(JSON.stringify(result.transcript.at(-1)), new RegExp(`and @${outside.replace(/[.]/g, "\\.")}`));
  assert.doesNotMatch(JSON.stringify(result.transcript), /ship on Monday/);
  assertValidTranscript(result.transcript);
});
