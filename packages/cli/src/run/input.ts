// The prompt of `harness run` and what is piped in with it: a prompt on standard input
// (`git diff | harness run -`), or input piped or redirected in beside a prompt argument, which
// follows the prompt as with `claude -p` (`cat error.log | harness run "explain"`).
import { fstatSync } from "node:fs";
import type { Readable } from "node:stream";
import type { Sink } from "../display/render.ts";
import { usageHint } from "../usage.ts";

/** The most of standard input taken as a prompt. */
export const MAX_STDIN_PROMPT_BYTES = 8 * 1024 * 1024;

type Prompt = { ok: true; prompt: string } | { ok: false; message: string };

/** The prompt of `harness run`: `given`, followed by what was piped or redirected in beside it; or,
 * when none is given (or "-"), what was piped in. A failure's message is one line for stderr. */
export async function runPrompt(given: string, stdin: Readable & { isTTY?: boolean }, stderr: Sink): Promise<Prompt> {
  if (given === "") {
    const piped = await promptFromStdin(stdin);
    return piped.ok ? piped : { ok: false, message: `${piped.message} (${usageHint("run")})` };
  }
  // Only the process's own input is looked at: a stream handed in (tests) is for a prompt alone.
  if (stdin !== process.stdin || !stdinPipedIn()) return { ok: true, prompt: given };
  const beside = await pipedBesidePrompt(stdin, stderr);
  if (!beside.ok) return beside;
  return { ok: true, prompt: beside.text === undefined ? given : `${given}\n\n${beside.text}` };
}

/** A prompt piped in (`git diff | harness run`). A terminal is not read: it would wait for typing. */
async function promptFromStdin(stdin: Readable & { isTTY?: boolean }): Promise<Prompt> {
  if (stdin.isTTY) return { ok: false, message: 'a prompt is needed: harness run "<prompt>", or pipe it in' };
  const read = await readAll(stdin);
  if (!read.ok) return { ok: false, message: `the prompt on ${read.message}` };
  const prompt = read.text.trim();
  return prompt ? { ok: true, prompt } : { ok: false, message: 'a prompt is needed: standard input was empty; harness run "<prompt>", or pipe it in' };
}

/** Standard input as text, up to MAX_STDIN_PROMPT_BYTES. */
async function readAll(stdin: Readable): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    bytes += buffer.length;
    if (bytes > MAX_STDIN_PROMPT_BYTES) return { ok: false, message: `standard input is over ${MAX_STDIN_PROMPT_BYTES / 1024 / 1024} MiB` };
    chunks.push(buffer);
  }
  // A byte-order mark some editors write is no part of the text.
  return { ok: true, text: Buffer.concat(chunks).toString("utf8").replace(/^\uFEFF/, "") };
}

/** Whether the process's standard input is something piped or redirected in (`cat log | harness run
 * "explain"`, `< notes.md`): a pipe or a file. A terminal, /dev/null, or a socket a parent program
 * left open is not read, as it may never end. */
function stdinPipedIn(): boolean {
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isFile();
  } catch {
    return false;
  }
}

/** A pipe still open this long gets a line on stderr saying what the run waits for. */
const STDIN_HINT_MS = 3_000;

/** What was piped in beside a prompt, added after it as Claude Code does; undefined when there is
 * nothing. */
async function pipedBesidePrompt(stdin: Readable, stderr: Sink): Promise<{ ok: true; text?: string } | { ok: false; message: string }> {
  const hint = setTimeout(() => stderr.write("harness: waiting for the input piped in to end (to run without it: < /dev/null)\n"), STDIN_HINT_MS);
  hint.unref();
  try {
    const read = await readAll(stdin);
    if (!read.ok) return { ok: false, message: `the input piped in after the prompt: ${read.message} (to run without it: < /dev/null)` };
    return read.text.trim() ? { ok: true, text: read.text.replace(/\s+$/, "") } : { ok: true };
  } finally {
    clearTimeout(hint);
  }
}
