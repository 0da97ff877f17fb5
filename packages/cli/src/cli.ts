// The `harness` command: dispatch to subcommands, each loaded only when used.
import type { Readable } from "node:stream";
import { parseArgs } from "./args.ts";
import type { Sink } from "./display/render.ts";
import { readPromptFile } from "./prompt-file.ts";
import { runPrompt } from "./run/input.ts";
import { helpText, usageHint } from "./usage.ts";
import { harnessVersion } from "./version.ts";

export type CliIO = { stdout: Sink; stderr: Sink; env: NodeJS.ProcessEnv; cwd: string; stdin?: Readable & { isTTY?: boolean } };

/** Runs the command line `argv` (without node and script) and resolves to the exit status. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  // `harness` alone at a terminal is a chat on this project, as `claude` alone is; piped or in a
  // script it prints the help, which nobody could type into.
  if (argv.length === 0 && (io.stdin ?? process.stdin).isTTY === true && io.stdout.isTTY === true) return runCli(["chat", "--local"], io);
  const command = parseArgs(argv);
  switch (command.kind) {
    case "help":
      io.stdout.write(helpText(command.topic));
      return 0;
    case "version":
      io.stdout.write(`harness ${harnessVersion()} (node ${process.version})\n`);
      return 0;
    case "usage-error":
      io.stderr.write(`harness: ${command.message} (${usageHint(command.topic)})\n`);
      return 2;
    case "run": {
      for (const note of command.notes ?? []) io.stderr.write(`harness: ${note}\n`);
      // The prompts of --system-prompt-file and --append-system-prompt-file are read first: a file
      // that cannot be read stops the run before it asks for anything.
      for (const [file, inline, flag] of [["systemPromptFile", "systemPrompt", "--system-prompt-file"], ["appendSystemPromptFile", "appendSystemPrompt", "--append-system-prompt-file"]] as const) {
        const path = command[file];
        if (path === undefined) continue;
        const read = readPromptFile(flag, path);
        if (!read.ok) {
          io.stderr.write(`harness: ${read.message}\n`);
          return 1;
        }
        command[inline] = read.text;
      }
      // With --input-format stream-json, standard input is the run's messages, read as they come.
      // Without a prompt, --resume may have taken it for an id: that is said before asking for one.
      if (command.resume !== undefined && command.prompt === "" && command.inputFormat !== "stream-json") {
        const { resumeProblem } = await import("./conversations.ts");
        const problem = await resumeProblem(io.env, io.cwd, command);
        if (problem) {
          io.stderr.write(`harness: ${problem}\n`);
          return 1;
        }
      }
      if (command.inputFormat !== "stream-json") {
        const prompt = await runPrompt(command.prompt, io.stdin ?? process.stdin, io.stderr);
        if (!prompt.ok) {
          io.stderr.write(`harness: ${prompt.message}\n`);
          return 2;
        }
        command.prompt = prompt.prompt;
      }
      const { runCommand } = await import("./run/run.ts");
      return runCommand(command, { ...io, stdin: io.stdin ?? process.stdin });
    }
    case "serve": {
      const { serveCommand } = await import("./serve/serve.ts");
      return serveCommand(command, io);
    }
    case "chat": {
      const chatIo = { ...io, stdin: io.stdin ?? process.stdin };
      if (command.local) return (await import("./chat/local.ts")).localChatCommand(command, chatIo);
      const { chatCommand } = await import("./chat/chat.ts");
      return chatCommand(command, chatIo);
    }
    case "mcp": {
      const { mcpCommand } = await import("./mcp/command.ts");
      return mcpCommand(command.mcp, io);
    }
    case "doctor": {
      const { doctorCommand } = await import("./doctor/command.ts");
      return doctorCommand(command, io);
    }
    case "plugin": {
      const { pluginCommand } = await import("./plugin/command.ts");
      return pluginCommand(command.plugin, io);
    }
  }
}
