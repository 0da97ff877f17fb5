// The client secret of `harness mcp add --client-secret`: from MCP_CLIENT_SECRET when it is set,
// else asked for on the terminal without showing it, else the first line of piped standard input.
import type { Readable } from "node:stream";
import type { ReadStream } from "node:tty";
import type { CliIO } from "../cli.ts";
import { McpFileError } from "./files.ts";

export async function readClientSecret(io: CliIO): Promise<string> {
  const fromEnv = io.env.MCP_CLIENT_SECRET;
  if (fromEnv !== undefined) {
    if (!fromEnv) throw new McpFileError("MCP_CLIENT_SECRET is empty: set it to the client secret, or unset it to be asked");
    return fromEnv;
  }
  const stdin = io.stdin;
  const secret = !stdin ? "" : stdin.isTTY ? await askHidden(stdin as ReadStream, io) : await firstLine(stdin);
  if (!secret) throw new McpFileError("--client-secret was given no secret: type it when asked, pipe it in, or set MCP_CLIENT_SECRET");
  return secret;
}

/** One line typed at the terminal, each character shown as "*". Ctrl+C cancels. */
function askHidden(stdin: ReadStream, io: CliIO): Promise<string> {
  io.stderr.write("Client secret: ");
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise<string>((resolve, reject) => {
    let secret = "";
    const done = (error?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      io.stderr.write("\n");
      if (error) reject(error);
      else resolve(secret);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") return done();
        if (char === "\u0003") return done(new McpFileError("cancelled: nothing was added"));
        if (char === "\u007f" || char === "\b") {
          if (secret) io.stderr.write("\b \b");
          secret = secret.slice(0, -1);
        } else if (char >= " ") {
          secret += char;
          io.stderr.write("*");
        }
      }
    };
    stdin.on("data", onData);
  });
}

async function firstLine(stdin: Readable): Promise<string> {
  let text = "";
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0];
}
