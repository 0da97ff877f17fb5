import assert from "node:assert/strict";
import diagnostics from "node:diagnostics_channel";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { ToolResultBlock } from "@harness/llm";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { mcpTestServerCommand } from "@harness/test-utils";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import { callTool, tempWorkspace } from "../../testing/fixtures.ts";
import { fitImage, fitOutputImages } from "./fit-image.ts";
import { downscale } from "./area-scaler.ts";
import { blocksOf, imageIn, jpegFile, pngFile, readThroughModel, textIn } from "./test-support.ts";
import { readTool } from "../read.ts";

test("a PNG larger than the model takes is shrunk to fit, kept PNG for its transparency, and the model is told", async (t) => {
  const { result } = await readThroughModel(t, "wide.png", pngFile(3000, 1000, true));
  assert.notEqual(result.is_error, true, textIn(result));
  const { mediaType, bytes } = imageIn(result);
  assert.equal(mediaType, "image/png");
  const decoded = PNG.sync.read(bytes);
  assert.deepEqual([decoded.width, decoded.height], [2000, 667]);
  assert.equal(decoded.data[3], 0, "the transparent half stays transparent");
  assert.equal(decoded.data[(2000 - 1) * 4 + 3], 255);
  assert.match(textIn(result), /The image wide\.png was resized from 3000×1000 to 2000×667 pixels to fit the model's image limits/);
});

test("a JPEG photo larger than the model takes is shrunk to fit as a JPEG, and the model is told", async (t) => {
  const { result } = await readThroughModel(t, "photo.jpg", jpegFile(4000, 3000));
  const { mediaType, bytes } = imageIn(result);
  assert.equal(mediaType, "image/jpeg");
  const decoded = jpeg.decode(bytes, { useTArray: true });
  assert.deepEqual([decoded.width, decoded.height], [2000, 1500]);
  assert.match(textIn(result), /The image photo\.jpg was resized from 4000×3000 to 2000×1500 pixels/);
  // The gradient survives: the right edge is red, the left is not.
  const red = (x: number, y: number) => decoded.data[(y * 2000 + x) * 4]!;
  assert.ok(red(1990, 750) > 240 && red(10, 750) < 15, `${red(1990, 750)} ${red(10, 750)}`);
});

test("shrinking a large photo does not hold up the event loop", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "photo.jpg"), jpegFile(4000, 3000));
  let longest = 0;
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  };
  const ticker = setInterval(tick, 5);
  const started = performance.now();
  const out = await callTool(readTool, { file_path: "photo.jpg" }, cwd);
  const took = performance.now() - started;
  tick();
  clearInterval(ticker);
  assert.match(out.content, /resized from 4000×3000 to 2000×1500/);
  // Decoding alone takes hundreds of milliseconds or more; on this thread it would be one long gap.
  assert.ok(longest < Math.max(250, took / 4), `the event loop stood still for ${Math.round(longest)} ms of ${Math.round(took)} ms`);
});

test("cancelling stops a shrink under way: its thread ends without an answer", async () => {
  const photo = jpegFile(4000, 3000);
  const controller = new AbortController();
  let answers = 0;
  let exited: Promise<unknown> | undefined;
  // Cancelled once the thread runs: decoding the photo takes it far longer than the cancel.
  const onWorker = (message: unknown) => {
    const { worker } = message as { worker: import("node:worker_threads").Worker };
    worker.on("message", () => answers++);
    worker.once("online", () => controller.abort());
    exited = new Promise((resolve) => worker.once("exit", resolve));
  };
  diagnostics.subscribe("worker_threads", onWorker);
  try {
    const fitted = await fitImage(photo, "image/jpeg", "photo.jpg", 3_932_160, controller.signal);
    assert.deepEqual(fitted.ok ? "shrunk" : fitted.message.replace(/^.*: /, ""), "the read was cancelled.");
    assert.ok(exited, "the shrink started a thread");
    await exited;
    assert.equal(answers, 0, "the shrink ran to its end");
  } finally {
    diagnostics.unsubscribe("worker_threads", onWorker);
  }
});

test("images are shrunk two at a time however many are read at once, and one cancelled while it waits never starts", async () => {
  // Each shrink holds its image decoded (hundreds of megabytes for a photo): a reply that reads
  // many at once must not decode them all at once.
  const picture = pngFile(2100, 2100);
  let running = 0;
  let most = 0;
  let started = 0;
  const onWorker = (message: unknown) => {
    const { worker } = message as { worker: import("node:worker_threads").Worker };
    started++;
    most = Math.max(most, ++running);
    worker.once("exit", () => running--);
  };
  diagnostics.subscribe("worker_threads", onWorker);
  try {
    const controller = new AbortController();
    const shrinks = Array.from({ length: 5 }, () => fitImage(picture, "image/png", "big.png", 3_932_160));
    const cancelled = fitImage(picture, "image/png", "last.png", 3_932_160, controller.signal);
    controller.abort();
    const last = await cancelled;
    assert.deepEqual(last.ok ? "shrunk" : last.message.replace(/^.*: /, ""), "the read was cancelled.");
    const fitted = await Promise.all(shrinks);
    assert.deepEqual(fitted.map((f) => (f.ok ? f.resized?.to : f.message)), Array(5).fill({ width: 2000, height: 2000 }));
    assert.equal(most, 2, `${most} shrinks ran at once`);
    assert.equal(started, 5, "the cancelled one started no worker");
  } finally {
    diagnostics.unsubscribe("worker_threads", onWorker);
  }
});

test("an image that fits reaches the model byte for byte, with no note", async (t) => {
  const small = jpegFile(640, 480);
  const { result } = await readThroughModel(t, "small.jpg", small);
  const { mediaType, bytes } = imageIn(result);
  assert.equal(mediaType, "image/jpeg");
  assert.ok(bytes.equals(small));
  assert.doesNotMatch(textIn(result), /resized/);
});

test("a corrupt image too large to send as it is is an error naming the file", async (t) => {
  // A PNG header claiming 5000×5000 pixels, followed by no image data.
  const header = pngFile(2, 2).subarray(0, 33);
  header.writeUInt32BE(5000, 16);
  header.writeUInt32BE(5000, 20);
  const { result, events } = await readThroughModel(t, "broken.png", Buffer.concat([header, Buffer.from("garbage, not a PNG stream")]));
  assert.equal(result.is_error, true);
  assert.match(textIn(result), /^broken\.png is 5000×5000 pixels .*could not be shrunk: it cannot be decoded as a PNG image/);
  assert.ok(events.some((e) => e.type === "tool.completed" && e.isError));
});

test("an image a prompt names with @path is shrunk too, and the prompt says so", async (t) => {
  const project = await tempProject(t);
  await project.write("big.png", pngFile(2500, 2500));
  const { provider } = await runInProject(project, [{ text: "A picture." }], { prompt: "What is in @big.png?" });
  const [prompt, ...rest] = blocksOf(withoutCacheMarks(provider.requests[0]!.messages).at(-1)?.content);
  assert.match(prompt?.type === "text" ? prompt.text : "", /Contents of big\.png:\nThe image big\.png was resized from 2500×2500 to 2000×2000 pixels[^\n]*\n\[an image, attached below\]/);
  const image = rest.find((b) => b.type === "image");
  assert.ok(image?.type === "image" && image.source.type === "base64");
  const decoded = PNG.sync.read(Buffer.from(image.source.data, "base64"));
  assert.deepEqual([decoded.width, decoded.height], [2000, 2000]);
});

test("an MCP tool's image too large for the model is shrunk, with a note, and one that fits passes as it is", async (t) => {
  const project = await tempProject(t);
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { pics: mcpTestServerCommand() } }));
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: ["pics"] } } }));
  await project.write(".claude/settings.json", JSON.stringify({ permissions: { allow: ["mcp__pics__image"] } }));
  await project.write("big.jpg", jpegFile(3000, 2400));
  await project.write("small.png", pngFile(300, 200));
  const { provider } = await runInProject(project, [
    {
      toolCalls: [
        { id: "m1", name: "mcp__pics__image", input: { file: path.join(project.root, "big.jpg"), mimeType: "image/jpeg" } },
        { id: "m2", name: "mcp__pics__image", input: { file: path.join(project.root, "small.png") } },
      ],
    },
    { text: "Seen." },
  ]);
  const results = blocksOf(withoutCacheMarks(provider.requests[1]!.messages).at(-1)?.content).filter((b): b is ToolResultBlock => b.type === "tool_result");
  const big = imageIn(results[0]!);
  assert.equal(big.mediaType, "image/jpeg");
  const decoded = jpeg.decode(big.bytes, { useTArray: true });
  assert.deepEqual([decoded.width, decoded.height], [2000, 1600]);
  assert.match(textIn(results[0]!), /The image was resized from 3000×2400 to 2000×1600 pixels to fit the model's image limits/);
  const small = imageIn(results[1]!);
  assert.ok(small.bytes.equals(await fs.readFile(path.join(project.root, "small.png"))));
  assert.doesNotMatch(textIn(results[1]!), /resized/);
});

test("a tool's image whose bytes are no image the model takes is left out with a note, not sent under the type it claims", async () => {
  const image = (data: Buffer, media_type: "image/png" | "image/jpeg") => ({ type: "image" as const, source: { type: "base64" as const, media_type, data: data.toString("base64") } });
  const page = Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>");
  const fitted = await fitOutputImages({ content: "Two pictures.", blocks: [{ type: "text", text: "Two pictures." }, image(page, "image/png"), image(Buffer.alloc(0), "image/jpeg")] }, 3_932_160);
  assert.equal(fitted.blocks, undefined, JSON.stringify(fitted.blocks)?.slice(0, 300));
  assert.equal(fitted.content.match(/\[image omitted: The image is no PNG, JPEG, GIF or WebP image \(\d+ bytes\)\.\]/g)?.length, 2, fitted.content);
});

test("shrinking averages the area each pixel covers instead of picking one source pixel", () => {
  const row = (...greys: number[]) => ({ width: greys.length, height: 1, data: new Uint8Array(greys.flatMap((g) => [g, g, g, 255])) });
  const greys = (image: { data: Uint8Array }) => [...image.data].filter((_, i) => i % 4 === 0);
  // Black and white columns halved: each target pixel is the mean of its pair.
  assert.deepEqual(greys(downscale(row(0, 255, 0, 255), { width: 2, height: 1 })), [128, 128]);
  // Black, white, black into two: each covers one pixel and half the white one.
  assert.deepEqual(greys(downscale(row(0, 255, 0), { width: 2, height: 1 })), [85, 85]);
  // A transparent pixel's colour does not bleed into an opaque neighbour's.
  const mixed = downscale({ width: 2, height: 1, data: new Uint8Array([255, 0, 0, 0, 0, 0, 255, 255]) }, { width: 1, height: 1 });
  assert.deepEqual([...mixed.data], [0, 0, 255, 128]);
});
