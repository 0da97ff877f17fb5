// Helpers shared by this package's tests.
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestContext } from "node:test";
import type { ContentBlock, ModelMessage, ModelRequest } from "@harness/llm";
import { waitFor as sharedWaitFor } from "@harness/test-utils";
import { prepareToolCall } from "../loop/tool-input.ts";
import type { Tool, ToolOutput } from "../types.ts";

/** A fresh directory, removed when the test ends. */
export async function tempWorkspace(t: TestContext): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "harness-agent-")));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Calls a tool the way the loop does: arguments validated first. */
export async function callTool(tool: Tool, input: Record<string, unknown>, cwd: string, signal = new AbortController().signal): Promise<ToolOutput> {
  const prepared = prepareToolCall(new Map([[tool.name, tool]]), tool.name, input);
  if (!prepared.ok) return { content: prepared.error, isError: true };
  return tool.execute(prepared.args, { cwd, signal, toolUseId: "toolu_test" });
}

/** Polls until `check` returns a value other than undefined; fails after `timeoutMs`. */
export function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  return sharedWaitFor(check, what, { timeoutMs });
}

/** Whether a process has ended (a zombie that nobody has reaped yet counts as ended). */
export async function processGone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat === "" || /^\d+ \(.*\) Z/.test(stat);
}

/** Asserts what the model API requires of a conversation: roles alternate starting with the user,
 * no message or text block is empty, and each assistant tool_use is answered by a tool_result in
 * the next message (and only there). */
export function assertValidTranscript(messages: readonly ModelMessage[]): void {
  assert.ok(messages.length > 0, "transcript is empty");
  messages.forEach((message, index) => {
    assert.equal(message.role, index % 2 === 0 ? "user" : "assistant", `message ${index} has the wrong role`);
    // The API refuses text of whitespace alone, and an error result with none.
    if (typeof message.content === "string") {
      assert.ok(message.content.trim().length > 0, `message ${index} is empty or blank`);
      return;
    }
    assert.ok(message.content.length > 0, `message ${index} has no content blocks`);
    for (const block of message.content) {
      if (block.type === "text") assert.ok(block.text.trim().length > 0, `message ${index} has an empty or blank text block`);
      if (block.type === "tool_result") {
        const parts = typeof block.content === "string" ? [block.content] : block.content.flatMap((part) => (part.type === "text" ? [part.text] : ["image"]));
        assert.ok(parts.length > 0 && parts.every((part) => part.trim().length > 0), `message ${index} has an empty or blank tool result`);
      }
    }
    const uses = message.content.filter((b) => b.type === "tool_use").map((b) => (b.type === "tool_use" ? b.id : ""));
    const next = messages[index + 1];
    const answered =
      next && typeof next.content !== "string"
        ? next.content.filter((b) => b.type === "tool_result").map((b) => (b.type === "tool_result" ? b.tool_use_id : ""))
        : [];
    if (message.role === "assistant") assert.deepEqual(answered, uses, `tool calls of message ${index} are not answered in order`);
  });
}

/** A request's system prompt as one string: the loop sends it as text blocks (with cache marks). */
export function systemText(request: ModelRequest | undefined): string {
  const system = request?.system;
  if (system === undefined) return "";
  return typeof system === "string" ? system : system.map((block) => block.text).join("\n\n");
}

/** Messages as a request carried them, without prompt-cache marks and with a lone text block read
 * back as a plain string, so tests can compare them with the transcript. */
export function withoutCacheMarks(messages: readonly ModelMessage[]): ModelMessage[] {
  return messages.map((message) => {
    if (typeof message.content === "string") return message;
    const content = message.content.map((block) => {
      if (!("cache_control" in block)) return block;
      const { cache_control: _mark, ...rest } = block;
      return rest as ContentBlock;
    });
    const [only] = content;
    return { role: message.role, content: content.length === 1 && only?.type === "text" ? only.text : content };
  });
}
