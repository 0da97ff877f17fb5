// What became of each line entered at the terminal: at its Enter, the typed copy either stays on the
// screen (a prompt, a command) or is taken off (a steer, which the chat shows its own way). The chat
// acts on a line a little later (it waits for more lines of a paste first), and the session may have
// started or ended a run meanwhile: how the line is sent and shown then follows from what was done to
// its typed copy at Enter, so that it shows once, whatever the session did in between.
import type { Interface } from "node:readline";

/** A line as the editor handed it over. `takenOff`: its typed copy was taken off the screen at its
 * Enter (true) or left there (false); undefined when no typed copy is kept apart (no terminal, or a
 * blank line). */
export type Entered = { text: string; takenOff?: boolean };

/** Keeps the fate each line of `editor` had at its Enter, as `takesOff(line)` decided it there, for
 * the chat to find again when it acts on the line. `keepOnEnter` is for the typed line's keeper. */
export function lineFates(editor: Interface, takesOff: (line: string) => boolean) {
  /** The line being entered: its keeper asks as the editor moves below it, just before the editor
   * hands it over (in the same turn of the event loop, so the session cannot change in between). */
  let entering: { line: string; takenOff: boolean } | undefined;
  const fates: (boolean | undefined)[] = [];
  editor.on("line", (line: string) => {
    fates.push(entering?.line === line && line.trim() ? entering.takenOff : undefined);
    entering = undefined;
  });
  return {
    keepOnEnter(line: string): boolean {
      entering = { line, takenOff: takesOff(line) };
      return !entering.takenOff;
    },
    /** The fate of the next line handed over, in order: one call for each. */
    next(): boolean | undefined {
      return fates.shift();
    },
  };
}

/** Lines taken together (a paste) in runs of one fate: each run is one prompt, sent and shown as
 * its lines were at Enter. A paste read in one go has one fate; one that comes in several reads
 * may meet a run starting or ending between them. Blank lines go with the run they are in. */
export function byFate(taken: readonly Entered[]): Entered[] {
  const runs: { lines: string[]; takenOff?: boolean }[] = [];
  for (const { text, takenOff } of taken) {
    const run = runs.at(-1);
    if (!run) runs.push({ lines: [text], takenOff });
    else if (takenOff === undefined || run.takenOff === undefined || run.takenOff === takenOff) {
      run.lines.push(text);
      run.takenOff ??= takenOff;
    } else runs.push({ lines: [text], takenOff });
  }
  return runs.map((run) => ({ text: run.lines.join("\n"), ...(run.takenOff !== undefined && { takenOff: run.takenOff }) }));
}
