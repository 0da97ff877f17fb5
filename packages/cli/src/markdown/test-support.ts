// Helpers of the markdown renderer's tests: what a terminal shows of its output, and the check that
// the output never depends on how the text was cut into chunks.
import assert from "node:assert/strict";
import { createMarkdownStream } from "./stream.ts";

const NAMES: Record<string, string> = { "1": "b", "2": "dim", "3": "i", "4": "u", "9": "s", "32": "str", "33": "num", "35": "kw", "36": "code" };

/** What a terminal shows of `out`, each run of one style as <style>text</> (plain text as it is):
 * where the escape sequences fall between two runs of one style does not change it. */
export function styled(out: string): string {
  let style = "";
  const runs: [string, string][] = [];
  for (const part of out.split(/(\x1b\[[\d;]*m)/)) {
    const sgr = /^\x1b\[([\d;]*)m$/.exec(part);
    if (sgr) style = sgr[1] === "0" || sgr[1] === "" ? "" : sgr[1].split(";").map((code) => NAMES[code] ?? code).join("+");
    else if (part && runs.at(-1)?.[1] === style) runs.at(-1)![0] += part;
    else if (part) runs.push([part, style]);
  }
  return runs.map(([text, s]) => (s ? `<${s}>${text}</>` : text)).join("");
}

/** `chunks` pushed one by one, then the end. */
export function render(...chunks: string[]): string {
  const md = createMarkdownStream({ columns: () => 40 });
  return styled(chunks.map((chunk) => md.push(chunk)).join("") + md.end());
}

/** Renders `sample` whole, then split at every place, one character at a time and cut at random:
 * all the same. */
export function assertChunkingInvariant(sample: string): void {
  const whole = render(sample);
  for (let i = 0; i <= sample.length; i++) assert.equal(render(sample.slice(0, i), sample.slice(i)), whole, `split at ${i}: ${JSON.stringify(sample.slice(i - 5, i + 5))}`);
  assert.equal(render(...Array.from(sample)), whole, "one character at a time");
  // Random cuts, from a fixed seed.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let round = 0; round < 300; round++) {
    const chunks: string[] = [];
    for (let i = 0; i < sample.length; ) {
      const n = 1 + Math.floor(random() * 12);
      chunks.push(sample.slice(i, i + n));
      i += n;
    }
    assert.equal(render(...chunks), whole, `chunks ${JSON.stringify(chunks)}`);
  }
}
