// The `harness` command: dispatch to subcommands, each loaded only when used.
import { fstatSync, readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { parseArgs } from "./args.ts";
import type { Sink } from "./render.ts";
import { helpText, usageHint } from "./usage.ts";

export type CliIO = { stdout: Sink; stderr: Sink; env: NodeJS.ProcessEnv; cwd: string; stdin?: Readable & { isTTY?: boolean } };

/** The most of standard input taken as a prompt. */
export const MAX_STDIN_PROMPT_BYTES = 8 * 1024 * 1024;

/** A prompt piped in (`git diff | harness run`). A terminal is not read: it would wait for typing. */
async function promptFromStdin(stdin: Readable & { isTTY?: boolean }): Promise<{ ok: true; prompt: string } | { ok: false; message: string }> {
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

/** Runs the command line `argv` (without node and script) and resolves to the exit status. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const command = parseArgs(argv);
  switch (command.kind) {
    case "help":
      io.stdout.write(helpText(command.topic));
      return 0;
    case "version": {
      const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
      io.stdout.write(`harness ${pkg.version} (node ${process.version})\n`);
      return 0;
    }
    case "usage-error":
      io.stderr.write(`harness: ${command.message} (${usageHint(command.topic)})\n`);
      return 2;
    case "run": {
      if (command.prompt === "") {
        const read = await promptFromStdin(io.stdin ?? process.stdin);
        if (!read.ok) {
          io.stderr.write(`harness: ${read.message} (${usageHint("run")})\n`);
          return 2;
        }
        command.prompt = read.prompt;
      } else if ((io.stdin ?? process.stdin) === process.stdin && stdinPipedIn()) {
        const piped = await pipedBesidePrompt(process.stdin, io.stderr);
        if (!piped.ok) {
          io.stderr.write(`harness: ${piped.message}\n`);
          return 2;
        }
        if (piped.text !== undefined) command.prompt = `${command.prompt}\n\n${piped.text}`;
      }
      const { runCommand } = await import("./run.ts");
      return runCommand(command, io);
    }
    case "serve": {
      const { serveCommand } = await import("./serve.ts");
      return serveCommand(command, io);
    }
    case "chat": {
      const { chatCommand } = await import("./chat.ts");
      return chatCommand(command, { ...io, stdin: io.stdin ?? process.stdin });
    }
  }
}
