import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { filterLines } from "./filter-lines.ts";
import { defineTool } from "../../define-tool.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../../truncate.ts";
import { KEPT_FINISHED_SHELLS, type BackgroundShell } from "./background-shells.ts";
import type { ToolState } from "../state.ts";

/** How long a call waits for the output of a shell that has ended to close: a process it left
 * running in the background may hold the pipes open for good. */
const OUTPUT_SETTLE_MS = 250;

/** Characters of each stream shown per call; the newest are kept. */
const STREAM_BUDGET = Math.floor((MAX_TOOL_OUTPUT_CHARS - 1_000) / 2);

const description = `Gets the new output of a background shell started by Bash with run_in_background, and its status.

Usage:
- bash_id is the ID the Bash call returned.
- Each call returns only the output written since the previous call, stdout and stderr apart, with the status: running, completed or failed (with the exit code), or killed.
- filter is a regular expression: only output lines that match it are shown. The other lines are discarded and will not be shown later either.
- Use it to follow a server's log or a long build; stop the shell with KillShell.`;

export const bashOutputTool = defineTool({
  name: "BashOutput",
  readOnly: true,
  description,
  parameters: z.strictObject({
    bash_id: z.string().min(1).describe("The ID of the background shell to get output from"),
    filter: z.string().optional().describe("A regular expression; only output lines matching it are shown, the others are discarded"),
  }),
  async execute({ bash_id, filter }, { state }) {
    const shell = state?.shells.get(bash_id);
    if (!shell) return { content: unknownShell(bash_id, state), isError: true };
    if (filter !== undefined) {
      try {
        new RegExp(filter);
      } catch (error) {
        return { content: `Invalid filter ${JSON.stringify(filter)}: ${error instanceof Error ? error.message : String(error)}. It is a JavaScript regular expression.`, isError: true };
      }
    }
    // A shell's end is known as its process exits, and the last of its output may still be on the
    // way through the pipes: a status that says it ended comes with all it wrote, unless something
    // it left running holds the pipes open.
    if (shell.status !== "running" && shell.outputOpen) await Promise.race([shell.outputClosed, sleep(OUTPUT_SETTLE_MS)]);
    const out = shell.stdout.take();
    const err = shell.stderr.take();
    if (filter !== undefined) {
      const filtered = await filterLines(filter, [linesOf(out.text), linesOf(err.text)]);
      if (!filtered.ok) return { content: `${filtered.error} The output read now is discarded, as a filter would have done.`, isError: true };
      const [outKept, errKept] = filtered.groups;
      return { content: describeShell(shell, { ...out, text: outKept.join("\n") }, { ...err, text: errKept.join("\n") }) };
    }
    return { content: describeShell(shell, out, err) };
  },
});

type Taken = { text: string; dropped: number };

function linesOf(text: string): string[] {
  const body = text.replace(/\n$/, "");
  return body === "" ? [] : body.split("\n");
}

function describeShell(shell: BackgroundShell, out: Taken, err: Taken): string {
  const parts = [`<status>${shell.status}</status>`];
  if (shell.exitCode !== null) parts.push(`<exit_code>${shell.exitCode}</exit_code>`);
  const stdout = streamText(out);
  if (stdout) parts.push(`<stdout>\n${stdout}\n</stdout>`);
  const stderr = streamText(err);
  const error = shell.error;
  if (stderr || error) parts.push(`<stderr>\n${[stderr, error].filter(Boolean).join("\n")}\n</stderr>`);
  if (error) shell.error = undefined;
  parts.push(`<timestamp>${new Date().toISOString()}</timestamp>`);
  return parts.join("\n\n");
}

function streamText({ text, dropped }: Taken): string {
  let body = text.replace(/\n$/, "");
  let cut = dropped;
  if (body.length > STREAM_BUDGET) {
    cut += body.length - STREAM_BUDGET;
    body = body.slice(body.length - STREAM_BUDGET);
  }
  if (cut === 0) return body;
  return `[${cut.toLocaleString("en-US")} earlier characters of output were dropped; only the latest are shown]\n${body}`;
}

export function unknownShell(id: string, state: ToolState | undefined): string {
  const known = state ? [...state.shells.values()].map((s) => `${s.id} (${s.status}): ${s.command}`) : [];
  const list = known.length > 0 ? ` Background shells:\n${known.join("\n")}` : " No background shells have been started.";
  return `No background shell with ID ${JSON.stringify(id)} (of the finished ones, only the latest ${KEPT_FINISHED_SHELLS} are kept).${list}`;
}
