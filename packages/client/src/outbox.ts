// Frames of commands waiting for a connection. Each send() is one frame, as the caller made it, so
// that an error frame's command index still points into that call's commands.
import { frameTooLarge, MAX_COMMANDS_PER_FRAME, MAX_FRAME_BYTES } from "@harness/protocol/client-side";
import type { HarnessCommand } from "@harness/protocol";

/** Most commands waiting at once: as many as a session holds waiting (more get `busy` anyway). */
export const MAX_WAITING_COMMANDS = 1000;

/** The frame carrying `commands`, or a RangeError saying which limit of the server it breaks. */
export function commandsFrame(commands: readonly HarnessCommand[]): string {
  if (commands.length > MAX_COMMANDS_PER_FRAME) {
    throw new RangeError(`a frame holds at most ${MAX_COMMANDS_PER_FRAME} commands, not ${commands.length}: send them in several calls`);
  }
  const frame = JSON.stringify({ type: "commands", commands });
  if (frameTooLarge(frame)) throw new RangeError(tooLarge(commands, new TextEncoder().encode(frame).length));
  return frame;
}

/** The text a command carries that can make it too large, by the name a user knows it by. */
const LONG_FIELD: Partial<Record<HarnessCommand["type"], string>> = { submit: "prompt", resume: "prompt", steer: "message", deny: "reason" };

function tooLarge(commands: readonly HarnessCommand[], bytes: number): string {
  const size = bytes.toLocaleString("en");
  const limit = `the ${MAX_FRAME_BYTES.toLocaleString("en")} bytes (${MAX_FRAME_BYTES / 1024 ** 2} MiB) a frame may hold`;
  if (commands.length > 1) return `${commands.length} commands of ${size} bytes in all are over ${limit}: send them in several calls`;
  const { type } = commands[0];
  return `a ${type} of ${size} bytes is over ${limit}: shorten its ${LONG_FIELD[type] ?? "content"}`;
}

export class Outbox {
  #frames: { frame: string; commands: number }[] = [];
  #commands = 0;

  get size(): number {
    return this.#commands;
  }

  push(frame: string, commands: number): void {
    if (this.#commands + commands > MAX_WAITING_COMMANDS) {
      throw new RangeError(`${this.#commands} commands already wait for the connection (at most ${MAX_WAITING_COMMANDS})`);
    }
    this.#frames.push({ frame, commands });
    this.#commands += commands;
  }

  /** Takes every waiting frame, oldest first. */
  drain(): string[] {
    const frames = this.#frames.map((f) => f.frame);
    this.#frames = [];
    this.#commands = 0;
    return frames;
  }
}
