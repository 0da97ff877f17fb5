import assert from "node:assert/strict";
import { test } from "node:test";
import { convertToolResult, EMPTY_RESULT, FAILED_WITHOUT_OUTPUT, MAX_IMAGE_BYTES } from "./tool-result.ts";

test("text parts are joined by newlines; isError is kept; no blocks without images", () => {
  const output = convertToolResult({ content: [{ type: "text", text: "line one" }, { type: "text", text: "line two" }], isError: true });
  assert.deepEqual(output, { content: "line one\nline two", isError: true });
});

test("an empty result says the tool ran without output", () => {
  assert.deepEqual(convertToolResult({ content: [] }), { content: EMPTY_RESULT, isError: false });
  // Blank text is no text (the model API refuses it), and a failure without a word says it failed.
  assert.deepEqual(convertToolResult({ content: [{ type: "text", text: "" }], isError: true }), { content: FAILED_WITHOUT_OUTPUT, isError: true });
  assert.deepEqual(convertToolResult({ content: [{ type: "text", text: " \n" }, { type: "text", text: "kept" }] }), { content: "kept", isError: false });
});

test("structured content alone is shown as JSON", () => {
  assert.deepEqual(convertToolResult({ content: [], structuredContent: { temperature: 21 } }), {
    content: '{\n  "temperature": 21\n}',
    isError: false,
  });
});

test("embedded text resources are shown; binary content is described, not dropped silently", () => {
  const output = convertToolResult({
    content: [
      { type: "resource", resource: { uri: "file:///notes.md", text: "# Notes" } },
      { type: "resource", resource: { uri: "file:///a.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///big.csv", name: "big.csv" },
      { type: "image", data: "AAAA", mimeType: "image/bmp" },
    ],
  });
  assert.equal(
    output.content,
    [
      "# Notes",
      "[binary resource file:///a.bin (application/octet-stream, 3 bytes) omitted]",
      "[audio (audio/wav) omitted: audio cannot be shown to the model]",
      "[resource link: big.csv (file:///big.csv)]",
      "[image of unsupported type image/bmp omitted, 3 bytes]",
    ].join("\n"),
  );
  assert.equal(output.blocks, undefined);
});

test("images become image blocks in order with the texts; too large images are left out with a note", () => {
  const big = "A".repeat(Math.ceil(((MAX_IMAGE_BYTES + 10) * 4) / 3));
  const output = convertToolResult({
    content: [
      { type: "text", text: "before" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "image", data: big, mimeType: "image/jpeg" },
    ],
  });
  const mb = MAX_IMAGE_BYTES / (1024 * 1024);
  assert.equal(output.content, `before\n[image: image/png, 8 bytes]\n[image/jpeg image omitted: ${mb.toFixed(1)} MB, over the ${mb} MB limit for images]`);
  assert.deepEqual(output.blocks?.map((b) => b.type), ["text", "image", "text"]);
  assert.deepEqual(output.blocks?.[1], { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } });
});

test("malformed items are described where they stand and the rest of the result is kept", () => {
  const output = convertToolResult({ content: [{ type: "text", text: "kept" }, null, { type: "text" }, "loose text", { type: "video", url: "http://x" }] });
  assert.deepEqual(output, {
    content: 'kept\n[malformed content item omitted: null]\n[malformed text item omitted: its "text" is missing]\n[malformed content item omitted: the text "loose text"]\n[content of type "video" omitted]',
    isError: false,
  });
  assert.deepEqual(convertToolResult({ content: "just a string" }), { content: '[malformed result: "content" must be a list, got the text "just a string"]', isError: false });
});
