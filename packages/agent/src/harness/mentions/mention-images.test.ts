import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContentBlock, ToolResultBlock } from "@harness/llm";
import { mcpTestServerCommand, TEST_PNG_BASE64 } from "@harness/test-utils";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import { testPdf } from "../../tools/pdf/test-support.ts";

function blocksOf(content: string | ContentBlock[] | undefined): ContentBlock[] {
  assert.ok(Array.isArray(content), `expected content blocks, got ${JSON.stringify(content)}`);
  return content;
}

const isTestPng = (block: ContentBlock | { type: string }) => block.type === "image" && "source" in block && block.source.type === "base64" && block.source.data === TEST_PNG_BASE64;

test("a picture the user's prompt names with @path reaches the model as an image after the prompt, not as empty contents", async (t) => {
  const project = await tempProject(t);
  await project.write("logo.png", Buffer.from(TEST_PNG_BASE64, "base64"));
  const { provider } = await runInProject(project, [{ text: "A logo." }], { prompt: "What is in @logo.png?" });
  const [prompt, ...rest] = blocksOf(withoutCacheMarks(provider.requests[0].messages).at(-1)?.content);
  assert.deepEqual(prompt, { type: "text", text: "What is in @logo.png?\n\nContents of logo.png:\n[an image, attached below]" });
  assert.ok(rest.some(isTestPng), JSON.stringify(rest));
});

test("a picture a skill names reaches the model in the Skill call's result", async (t) => {
  const project = await tempProject(t);
  await project.write("logo.png", Buffer.from(TEST_PNG_BASE64, "base64"));
  await project.write(".claude/skills/brand/SKILL.md", "---\ndescription: The brand\n---\nOur logo: @logo.png");
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "s1", name: "Skill", input: { skill: "brand" } }] }, { text: "ok" }]);
  const [result] = blocksOf(withoutCacheMarks(provider.requests[1].messages).at(-1)?.content).filter((b): b is ToolResultBlock => b.type === "tool_result");
  const parts = blocksOf(result?.content as ContentBlock[]);
  assert.match(parts[0]?.type === "text" ? parts[0].text : "", /Our logo: @logo\.png\n\nContents of logo\.png:\n\[an image, attached below\]$/);
  assert.ok(parts.some(isTestPng), JSON.stringify(parts));
});

test("an image resource named as @server:uri reaches the model as an image", async (t) => {
  const project = await tempProject(t);
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { docs: mcpTestServerCommand({ resources: true }) } }));
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: ["docs"] } } }));
  const { provider } = await runInProject(project, [{ text: "A logo." }], { prompt: "Describe @docs:docs://logo" });
  const [prompt, ...rest] = blocksOf(withoutCacheMarks(provider.requests[0].messages).at(-1)?.content);
  assert.match(prompt?.type === "text" ? prompt.text : "", /^Describe @docs:docs:\/\/logo\n\nContents of docs:docs:\/\/logo:\n\[an image, attached below\]$/);
  assert.ok(rest.some(isTestPng), JSON.stringify(rest));
});

test("a PDF the user's prompt names with @path reaches the model as a document after the prompt", async (t) => {
  const project = await tempProject(t);
  const pdf = testPdf(2);
  await project.write("paper.pdf", pdf);
  const { provider } = await runInProject(project, [{ text: "A paper." }], { prompt: "Summarize @paper.pdf" });
  const [prompt, ...rest] = blocksOf(withoutCacheMarks(provider.requests[0].messages).at(-1)?.content);
  assert.match(prompt.type === "text" ? prompt.text : "", /^Summarize @paper\.pdf\n\nContents of paper\.pdf:\nRead PDF paper\.pdf \(2 pages, [\d.]+ (?:bytes|KB)\)\.\n\[a PDF document, attached below\]$/);
  assert.ok(rest.some((b) => b.type === "document" && b.source.data === pdf.toString("base64")), JSON.stringify(rest).slice(0, 300));
});
