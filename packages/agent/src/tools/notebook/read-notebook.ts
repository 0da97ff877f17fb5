// A notebook as Read shows it: every cell with its id, type and source, then its outputs as text;
// image outputs go to the model as images.
import type { ToolImageBlock, ToolOutput, ToolOutputBlock } from "../../types.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../../truncate.ts";
import { cellIdOf, type Notebook, sourceText } from "./notebook.ts";

const TEXT_BUDGET = MAX_TOOL_OUTPUT_CHARS - 500;
const MAX_OUTPUT_CHARS = 5_000;
const MAX_IMAGES = 10;
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

type ImageType = ToolImageBlock["source"]["media_type"];
const IMAGE_TYPES: readonly ImageType[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

export function renderNotebook(notebook: Notebook, shown: string, maxImageBytes: number): ToolOutput {
  const blocks: ToolOutputBlock[] = [];
  let text: string[] = [];
  let size = 0;
  let images = 0;
  let stoppedAt = -1;
  const language = languageOf(notebook);
  const flush = () => {
    if (text.length > 0) blocks.push({ type: "text", text: text.join("\n") });
    text = [];
  };
  const add = (line: string) => {
    text.push(line);
    size += line.length + 1;
  };

  for (let index = 0; index < notebook.cells.length; index++) {
    if (size > TEXT_BUDGET) {
      stoppedAt = index;
      break;
    }
    const cell = notebook.cells[index];
    const id = cellIdOf(cell, index);
    const count = typeof cell.execution_count === "number" ? ` execution_count="${cell.execution_count}"` : "";
    const lang = cell.cell_type === "code" && language ? ` language="${language}"` : "";
    add(`<cell id="${id}" cell_type="${cell.cell_type}"${lang}${count}>\n${clip(sourceText(cell.source), TEXT_BUDGET - size)}\n</cell>`);
    for (const output of cell.outputs ?? []) {
      const image = imageOf(output, maxImageBytes);
      if (image && images < MAX_IMAGES) {
        images++;
        add(`<output cell_id="${id}">[${image.source.media_type} image]</output>`);
        flush();
        blocks.push(image);
        continue;
      }
      const body = outputText(output);
      if (body !== undefined) add(`<output cell_id="${id}">\n${clip(body, Math.min(MAX_OUTPUT_CHARS, TEXT_BUDGET - size))}\n</output>`);
    }
  }
  if (notebook.cells.length === 0) add(`(${shown} has no cells.)`);
  if (stoppedAt !== -1) {
    add(
      `\n(Output stopped at cell ${stoppedAt} of ${notebook.cells.length} to stay within the size limit. Use Bash, for example jq '.cells[${stoppedAt}:]' on the file, to see the rest.)`,
    );
  }
  flush();
  const content = blocks.map((block) => (block.type === "text" ? block.text : "")).filter(Boolean).join("\n");
  return images > 0 ? { content, blocks } : { content };
}

function languageOf(notebook: Notebook): string | undefined {
  const info = notebook.metadata?.language_info;
  if (typeof info === "object" && info !== null && "name" in info && typeof info.name === "string") return info.name;
  return undefined;
}

function clip(text: string, limit: number): string {
  const room = Math.max(200, limit);
  if (text.length <= room) return text;
  return `${text.slice(0, room)}… [${(text.length - room).toLocaleString("en-US")} more characters cut]`;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function joined(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((part) => typeof part === "string")) return value.join("");
  return undefined;
}

/** The text of one output (stream, result, display or error), or undefined when it has none. */
function outputText(value: unknown): string | undefined {
  const output = record(value);
  if (!output) return undefined;
  if (output.output_type === "stream") return joined(output.text)?.replace(/\n$/, "");
  if (output.output_type === "error") {
    const trace = Array.isArray(output.traceback) ? output.traceback.filter((l): l is string => typeof l === "string") : [];
    const text = trace.length > 0 ? trace.join("\n") : `${String(output.ename ?? "Error")}: ${String(output.evalue ?? "")}`;
    return text.replace(ANSI, "");
  }
  const data = record(output.data);
  if (!data) return undefined;
  const plain = joined(data["text/plain"]) ?? joined(data["text/markdown"]);
  if (plain !== undefined) return plain.replace(/\n$/, "");
  const kinds = Object.keys(data);
  return kinds.length > 0 ? `[${kinds.join(", ")} output]` : undefined;
}

function imageOf(value: unknown, maxImageBytes: number): ToolImageBlock | undefined {
  const data = record(record(value)?.data);
  if (!data) return undefined;
  for (const type of IMAGE_TYPES) {
    const encoded = joined(data[type])?.replace(/\s+/g, "");
    if (encoded && (encoded.length * 3) / 4 <= maxImageBytes) return { type: "image", source: { type: "base64", media_type: type, data: encoded } };
  }
  return undefined;
}
