// The `harness` command: dispatch to subcommands, each loaded only when used.
import { readFileSync } from "node:fs";
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
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    bytes += buffer.length;
    if (bytes > MAX_STDIN_PROMPT_BYTES) return { ok: false, message: `the prompt on standard input is over ${MAX_STDIN_PROMPT_BYTES / 1024 / 1024} MiB` };
    chunks.push(buffer);
  }
  const prompt = Buffer.concat(chunks).toString("utf8").trim();
  return prompt ? { ok: true, prompt } : { ok: false, message: 'a prompt is needed: standard input was empty; harness run "<prompt>", or pipe it in' };
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
