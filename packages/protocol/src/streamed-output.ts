// The note that stands for the middle of a running call's output once it grew too long to stream
// whole (a tool.output event with `replace`). Clients that follow the output as it grows (a chat
// printing a command's lines as they come) find where the cut is by it.

/** The note put between the kept beginning and end of streamed output. */
export function streamCutNote(omitted: number): string {
  return `\n\n... [${omitted.toLocaleString("en-US")} characters of output omitted] ...\n\n`;
}

/** Matches the note in streamed output. */
export const STREAM_CUT_NOTE = /\n\n\.\.\. \[[\d,]+ characters of output omitted\] \.\.\.\n\n/;
