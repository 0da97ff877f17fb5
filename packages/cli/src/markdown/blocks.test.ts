// The block forms of CommonMark a reply uses beyond single lines: indented code, block quotes with
// lazy lines, nested quotes and blocks inside them, nested and numbered lists with blocks inside
// their items (a table or a code block on an item's first line too), setext underlines, and GFM's
// tables without outer pipes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createMarkdownStream } from "./stream.ts";
import { assertChunkingInvariant, render, styled } from "./test-support.ts";

const BLOCKS = `Intro paragraph.

    indented code
\twith a tab

Text
    not code: it goes on with the paragraph

> quoted *line*
lazy continuation
> > nested quote
> - item in quote
> \`\`\`sh
> echo hi
> \`\`\`

3. three
4. four
   continued in the item

5. five after a blank
1) paren
- a
  - b under two spaces
    - c
- d
    - e under four spaces
1. first
  - nested under a number with two spaces
2. second
   \`\`\`js
   let x = 1;
   \`\`\`
3. third

   A paragraph in the item.

       code in the item
Done`;

test("indented code, quotes with lazy lines and blocks inside, and nested, numbered lists render as a terminal should show them", () => {
  assert.equal(
    render(BLOCKS),
    [
      "Intro paragraph.",
      "",
      "  <code>indented code</>",
      "  <code>with a tab</>",
      "",
      "Text",
      "not code: it goes on with the paragraph",
      "",
      "<dim>│ </>quoted <i>line</>",
      "<dim>│ </>lazy continuation",
      "<dim>│ │ </>nested quote",
      "<dim>│ </>• item in quote",
      "<dim>│ </>  <code>echo hi</>",
      "",
      "3. three",
      "4. four",
      "   continued in the item",
      "",
      "5. five after a blank",
      "1) paren",
      "• a",
      "  • b under two spaces",
      "    • c",
      "• d",
      "  • e under four spaces",
      "1. first",
      "   • nested under a number with two spaces",
      "2. second",
      "     <kw>let</><code> x = </><num>1</><code>;</>",
      "3. third",
      "",
      "   A paragraph in the item.",
      "",
      "     <code>code in the item</>",
      "Done",
    ].join("\n"),
  );
});

/** Blocks in blocks: a table and a setext underline in a quote, a fence on an item's first line,
 * tabs, quotes in an item, code in a quote. */
const NESTED = `> Title
> ===
> | a | b |
> |---|---|
> | 1 | 2 |
>
> - x
lazy in the item

- \`\`\`js
  let a
  \`\`\`
-\tb
\t- tabbed

  > quote in an item
  > > and in it

>     code in a quote`;

test("any split of the block forms into chunks renders as the text in one chunk does", () => {
  assertChunkingInvariant(BLOCKS);
  assertChunkingInvariant(NESTED);
});

test("blocks inside blocks show the bars and indents of all they are in", () => {
  assert.equal(
    render(NESTED),
    [
      `<dim>│ </>Title`,
      `<dim>│ ${"─".repeat(38)}</>`,
      "<dim>│ ┌───┬───┐</>",
      "<dim>│ │</> <b>a</> <dim>│</> <b>b</> <dim>│</>",
      "<dim>│ ├───┼───┤</>",
      "<dim>│ │</> 1 <dim>│</> 2 <dim>│</>",
      "<dim>│ └───┴───┘</>",
      "<dim>│ </>",
      "<dim>│ </>• x",
      "<dim>│ </>  lazy in the item",
      "",
      "•   <kw>let</><code> a</>",
      "• b",
      "  • tabbed",
      "",
      "  <dim>│ </>quote in an item",
      "  <dim>│ │ </>and in it",
      "",
      "<dim>│ </>  <code>code in a quote</>",
    ].join("\n"),
  );
});

test("a list's items are numbered on from its first, blank lines between them or not", () => {
  assert.equal(render("1. a\n\n1. b\n\n1. c\n"), "1. a\n\n2. b\n\n3. c\n");
  assert.equal(render("3) x\n3) y\n"), "3) x\n4) y\n");
  // A paragraph between ends the list: the next one starts at its own number.
  assert.equal(render("1. a\n\nText.\n\n2. b\n"), "1. a\n\nText.\n\n2. b\n");
  // Text indented to the item after a blank line is the item's, not code.
  assert.equal(render("- a\n\n    more of a\n- b\n"), "• a\n\n  more of a\n• b\n");
});

test("a line of dashes or equals signs under a paragraph underlines it; after a blank line --- is a rule; a table's delimiter row is neither", () => {
  const rule = `<dim>${"─".repeat(40)}</>`;
  assert.equal(render("Title\n--\n"), `Title\n${rule}\n`);
  assert.equal(render("Title\n=\n"), `Title\n${rule}\n`);
  assert.equal(render("Text\n\n---\n"), `Text\n\n${rule}\n`);
  assert.equal(render("Text\n    ---\n"), "Text\n---\n");
  assert.equal(render("> Quoted title\n> ---\n"), `<dim>│ </>Quoted title\n<dim>│ ${"─".repeat(38)}</>\n`);
});

test("a quote's or a list's lines stream as they come: only a line's first characters wait for its kind", () => {
  const md = createMarkdownStream();
  assert.equal(styled(md.push("> quo")), "<dim>│ </>quo");
  assert.equal(styled(md.push("ted\nla")), "ted\n<dim>│ </>la");
  // Four spaces: a blank line's, or indented code's.
  assert.equal(styled(md.push("zy\n\n    ")), "zy\n\n");
  assert.equal(styled(md.push("code\n1. a\n  ")), "  <code>code</>\n1. a\n");
  assert.equal(styled(md.push("- b")), "   • b");
  assert.equal(styled(md.push("\n  c")), "\n     c");
});

test("a 200 KB reply of quotes, nested lists and indented code streamed a character at a time costs work linear in its length", () => {
  const reply = BLOCKS.repeat(Math.ceil(200_000 / BLOCKS.length)).slice(0, 200_000);
  let read = 0;
  const md = createMarkdownStream({ columns: () => 40, meter: (chars) => (read += chars) });
  const out = Array.from(reply, (char) => md.push(char)).join("") + md.end();
  assert.equal(styled(out), render(reply));
  assert.ok(read < 20 * reply.length, `${read} characters read for ${reply.length}`);
});

test("a number and a dot at a line's start go on with the paragraph above unless they number a list from 1", () => {
  // "2024." under a paragraph is its text (CommonMark: only a list from 1 breaks into a paragraph),
  // and a list after it starts at its own number.
  assert.equal(render("Revenue grew in\n2024. The plan:\n1. Hire\n2. Ship\n"), "Revenue grew in\n2024. The plan:\n1. Hire\n2. Ship\n");
  assert.equal(render("> Founded in\n> 1999. Since then\n"), "<dim>│ </>Founded in\n<dim>│ </>1999. Since then\n");
  assert.equal(render("- shipped in\n  2024. Then\n- next\n"), "• shipped in\n  2024. Then\n• next\n");
  // An empty item does not break into one either.
  assert.equal(render("Text\n+ \nmore\n"), "Text\n+ \nmore\n");
  // After a blank line, or as the next item of a list, any number starts or numbers an item.
  assert.equal(render("Text\n\n2024. x\n2025. y\n"), "Text\n\n2024. x\n2025. y\n");
  assert.equal(render("1. a\n7. b\n"), "1. a\n2. b\n");
  assertChunkingInvariant("Text\n-   \nmore\n-   x\n+ \ty\n");
  assertChunkingInvariant("Revenue grew in\n2024. The plan:\n1. Hire\n> a\n1999. b\n- c\n  7. d\n");
});

test("quotes and items nest at most twenty deep: the markers of a line nested deeper are its text, and a 1 MB line of them streams in linear work", () => {
  const deep = `${"> ".repeat(30)}deep\nlazy\n`;
  assert.equal(render(deep), `${"<dim>│ </>".repeat(20).replace(/<\/><dim>/g, "")}${"> ".repeat(10)}deep\n${"<dim>│ </>".repeat(20).replace(/<\/><dim>/g, "")}lazy\n`);
  assertChunkingInvariant("- a\n".concat(`${"- ".repeat(25)}b\n`, "  c\n"));
  for (const marker of ["> ", "* ", "1. "]) {
    const line = `${marker.repeat(Math.ceil(1_000_000 / marker.length))}x\n`;
    let read = 0;
    const md = createMarkdownStream({ columns: () => 80, meter: (chars) => (read += chars) });
    let shown = 0;
    for (let i = 0; i < line.length; i += 1000) shown += md.push(line.slice(i, i + 1000)).length;
    // Each lazy line after it shows the bars and indents of twenty blocks at most, not of the line's all.
    for (let i = 0; i < 1000; i++) shown += md.push("lazy\n").length;
    shown += md.end().length;
    assert.ok(read < 20 * line.length, `${JSON.stringify(marker)}: ${read} characters read for ${line.length}`);
    assert.ok(shown < line.length + 1000 * 200, `${JSON.stringify(marker)}: ${shown} characters shown`);
  }
});

/** Tables without outer pipes, as GFM has them, and lines with pipes that are no tables. */
const BARE = `Name | Value
:--- | ---:
**x** | 1
y | 22
After the table.

| a | b |
--- | ---
| 1 | 2 |

a | b
---

a | b
c \\| d
- e | f
  g | h
  --|--`;

test("a table without outer pipes is laid out as one with them; a paragraph's first line waits for a pipe in its first characters", () => {
  const table = (...rows: string[]) => rows.join("\n");
  assert.equal(
    render(BARE),
    table(
      "<dim>┌──────┬───────┐</>",
      "<dim>│</> <b>Name</> <dim>│</> <b>Value</> <dim>│</>",
      "<dim>├──────┼───────┤</>",
      "<dim>│</> <b>x</>    <dim>│</>     1 <dim>│</>",
      "<dim>│</> y    <dim>│</>    22 <dim>│</>",
      "<dim>└──────┴───────┘</>",
      "After the table.",
      "",
      "<dim>┌───┬───┐</>",
      "<dim>│</> <b>a</> <dim>│</> <b>b</> <dim>│</>",
      "<dim>├───┼───┤</>",
      "<dim>│</> 1 <dim>│</> 2 <dim>│</>",
      "<dim>└───┴───┘</>",
      "",
      // A dash line without a pipe under it: a setext underline.
      "a | b",
      `<dim>${"─".repeat(40)}</>`,
      "",
      "a | b",
      "c | d",
      "• e | f",
      "  g | h",
      "  --|--",
    ),
  );
  assertChunkingInvariant(BARE);
  const md = createMarkdownStream();
  // The first line of a paragraph waits until a pipe, or 32 characters without one, has come.
  assert.equal(styled(md.push("A paragraph's first line")), "");
  assert.equal(styled(md.push(" streams once past")), "A paragraph's first line streams once past");
  assert.equal(styled(md.push(" its start\nand its next lines at once\n\nk | v\n")), " its start\nand its next lines at once\n\n");
  assert.equal(styled(md.push("-|-\n1 | 2\n")), "");
  assert.equal(styled(md.end()), table("<dim>┌───┬───┐</>", "<dim>│</> <b>k</> <dim>│</> <b>v</> <dim>│</>", "<dim>├───┼───┤</>", "<dim>│</> 1 <dim>│</> 2 <dim>│</>", "<dim>└───┴───┘</>", ""));
});

/** Items whose first line is a table's or a fence's: the item's mark is on the first line shown. */
const OPENED = `- | a | b |
  |---|---|
  | 1 | 2 |
1. \`\`\`sh
   echo hi
   \`\`\`
2. - \`\`\`
     two deep
     \`\`\`
3. \`\`\`
   \`\`\`
4. | not a table |
> - \`\`\`
>   quoted
>   \`\`\``;

test("an item opened on a table's line or a fence's shows its mark on the table's first line or the code's", () => {
  assert.equal(
    render(OPENED),
    [
      "• <dim>┌───┬───┐</>",
      "  <dim>│</> <b>a</> <dim>│</> <b>b</> <dim>│</>",
      "  <dim>├───┼───┤</>",
      "  <dim>│</> 1 <dim>│</> 2 <dim>│</>",
      "  <dim>└───┴───┘</>",
      "1.   <code>echo hi</>",
      "2. •   <code>two deep</>",
      // An empty code block: the mark on a line of its own.
      "3. ",
      "4. | not a table |",
      "<dim>│ </>•   <code>quoted</>",
      "",
    ].join("\n"),
  );
  assertChunkingInvariant(OPENED);
});
