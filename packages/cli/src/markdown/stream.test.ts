import { test } from "node:test";
import assert from "node:assert/strict";
import { createMarkdownStream } from "./stream.ts";
import { REACH } from "./inline.ts";
import { assertChunkingInvariant, render, styled } from "./test-support.ts";

const SAMPLE = `# Plan

Some **bold**, *italic*, _also_, ***both*** and \`a *literal* \\\` span; snake_case stays, 2 * 3 = 6, src/*.ts and (*\"q\"*).
See [the docs](https://example.com/docs "Docs") or [https://a.io](https://a.io), \\*not italic\\*.

## Steps
- one **strong** step
* two
  1. nested \`code\`
12) twelve
> a quote with *style*
> - and a list

***

\`\`\`ts
const x = 2 * 3; // **not bold**
    | not | a table |
\`\`\`

| Name | Count | Where |
|:-----|------:|:-----:|
| **a** | 1 | \`here\` |
| bb | 22 |
| wide 漢字 | 3 | x |
Text after the table.
| only | one row |
#hashtag, 1.5 and -dash, ~~~ and \`\`x\`\`.
~~~
tilde **code**
~~~
End with *open`;

/** More forms: task lists, strikethrough, autolinks, closing #s, spaced rules, setext underlines,
 * stars in a call's arguments. */
const MORE = `- [ ] todo *item*
- [x] done
* [X] also done
1. [ ] numbered
- [link](x) and [ ]not a box
- - -
## Closing hashes ##
### Hash#tag # ###
#### Literal \\#
~~struck~~ and ~not~ and a~~b~~c, ~~ spaced ~~ \\~~escaped~~ \`~~code~~\`.
See <https://example.com/a?b=1> or <mail@example.com>, not <br>, a<b or <https://x y>.
* * *
# Shut #

Setext Title
============

Subtitle
--------
Two lines
of a paragraph
---

A title that is far too long to be one, so it streams as it comes in
===
Call f(*args, **kwargs) and g(x, *rest); but (*this*) and *that*.`;

/** Emphasis markers that nothing closes, among ones that close, nested, in code and links, and
 * across a line's end. */
const UNCLOSED = `Use *args and **kwargs to forward them; 2 * 3 * 4 and a * b, a ** b.
An open **bold, then text
then *italic* on the next line, and **bold *nested* bold** with ~~an open strike.
*a \`b*\` c* and *see [x*y](u*v) here* and snake_case_name _a_b_ and *a*b* and **a*.
A closer that opens nothing: word* and *tail
___ and *** and ~~~ and ~~tilde~~ and __under__ and * not* and *not *
## A heading *open, **and *shut* ##`;

/** Code blocks in the languages coloured, strings and comments spanning lines among them. */
const CODE = `\`\`\`ts
const s = "a // b"; let n = 0x1F + 2.5e3; // note
/* a block
   comment */ return \`tmpl
\${n}\`;
\`\`\`
\`\`\`python
def f(x):  # doc
    return """multi
line""" if x else 'a\\'b' + 42
\`\`\`
\`\`\`sh
for f in *.ts; do echo "$f # not a comment" 'it''s'; done # done
\`\`\`
\`\`\`rust
fn f<'a>(s: &'a str) -> char { let c = 'x'; '\\n' }
\`\`\`
\`\`\`go
func main() { s := \`raw
still raw\`; n := 10 }
\`\`\`
\`\`\`json
{"a": [1, -2.5, true, null]}
\`\`\`
\`\`\`
plain code
\`\`\`
~~~unknownlang
if x
~~~`;

test("any split of a reply into chunks renders as the reply in one chunk does", () => {
  assertChunkingInvariant(SAMPLE);
  assertChunkingInvariant(MORE);
  assertChunkingInvariant(CODE);
  assertChunkingInvariant(UNCLOSED);
});

test("an emphasis marker that nothing on its line closes is shown as written, and one that closes styles its span", () => {
  assert.equal(render("use *args and **kwargs to forward them"), "use *args and **kwargs to forward them");
  assert.equal(render("2 * 3 * 4 and a * b"), "2 * 3 * 4 and a * b");
  assert.equal(render("An open **bold, then text\nthen *this*"), "An open **bold, then text\nthen <i>this</>");
  assert.equal(render("an open ~~strike and __under\n"), "an open ~~strike and __under\n");
  assert.equal(render("***both** *"), "*<b>both</> *");
  // A closer closes the opener nearest before it: the one before that stays text.
  assert.equal(render("*a *b* c and **d **e** f"), "*a <i>b</> c and **d <b>e</> f");
  assert.equal(
    render(UNCLOSED),
    [
      "Use *args and **kwargs to forward them; 2 * 3 * 4 and a * b, a ** b.",
      "An open **bold, then text",
      "then <i>italic</> on the next line, and <b>bold </><b+i>nested</><b> bold</> with ~~an open strike.",
      "<i>a </><i+code>b*</><i> c</> and <i>see </><i+u>x*y</><i+dim> (u*v)</><i> here</> and snake_case_name <i>a_b</> and <i>a</>b* and *<i>a</>.",
      "A closer that opens nothing: word* and *tail",
      "___ and *** and ~~~ and <s>tilde</> and <b>under</> and * not* and *not *",
      "<b>A heading *open, **and </><b+i>shut</>",
    ].join("\n"),
  );
});

/** Emphasis nested and overlapping as CommonMark's delimiter runs read it (the rule of 3 among them). */
const NESTED = `*a *b* c* and **a*. and *a **b** c* and **a *b* c**
***a*** and *a**b* and *foo**bar**baz* and foo***bar***baz
**foo* and __foo_ bar_ and *(**foo**)* and **a *b***
*foo** and ~~a ~~b~~ c~~
*a _b* c_ and ***a** b* and **a* b* and **foo "*bar*" foo**
*a***b and c** then *x***y*** z* end`;

test("nested emphasis is styled as CommonMark's delimiter runs style it", () => {
  assert.equal(
    render(NESTED),
    [
      "<i>a b c</> and *<i>a</>. and <i>a </><b+i>b</><i> c</> and <b>a </><b+i>b</><b> c</>",
      "<b+i>a</> and <i>a**b</> and <i>foo</><b+i>bar</><i>baz</> and foo<b+i>bar</>baz",
      "*<i>foo</> and <i>foo bar</> and <i>(</><b+i>foo</><i>)</> and <b>a </><b+i>b</>",
      "<i>foo</>* and <s>a b c</>",
      "<i>a _b</> c_ and <b+i>a</><i> b</> and <i>a b</> and <b>foo \"</><b+i>bar</><b>\" foo</>",
      "<i>a</><b>b and c</> then <i>x</><b>y</>* z* end",
    ].join("\n"),
  );
  assertChunkingInvariant(NESTED);
});

test("a closer a few hundred characters past its marker, or more, leaves the marker as text", () => {
  const near = `*${"x".repeat(297)}* and ~~${"y".repeat(296)}~~`;
  const far = `*${"x".repeat(299)}* and ~~${"y".repeat(299)}~~ and __${"z".repeat(250)}__`;
  assert.equal(render(near), `<i>${"x".repeat(297)}</> and <s>${"y".repeat(296)}</>`);
  assert.equal(render(far), `*${"x".repeat(299)}* and ~~${"y".repeat(299)}~~ and <b>${"z".repeat(250)}</>`);
  assertChunkingInvariant(`${near}\n${far}`);
});

test("the text after a marker waits for its closer, and is printed as it came once the line ends or the marker is far behind", () => {
  const md = createMarkdownStream();
  assert.equal(styled(md.push("Intro.\nThe **fi")), "Intro.\nThe ");
  assert.equal(styled(md.push("rst** and *ar")), "<b>first</> and ");
  assert.equal(styled(md.push("gs too\n")), "*args too\n");
  assert.equal(styled(md.push(`*${"x".repeat(400)}`)), `*${"x".repeat(400)}`);
  assert.equal(styled(md.push("*\n")), "*\n");
});

test("a code block in a language it knows has its keywords, strings, comments and numbers coloured", () => {
  assert.equal(
    render(CODE),
    [
      "  <kw>const</><code> s = </><str>\"a // b\"</><code>; </><kw>let</><code> n = </><num>0x1F</><code> + </><num>2.5e3</><code>; </><dim>// note</>",
      "  <dim>/* a block</>",
      "  <dim>   comment */</><code> </><kw>return</><code> </><str>`tmpl</>",
      "  <str>${n}`</><code>;</>",
      "  <kw>def</><code> f(x):  </><dim># doc</>",
      "  <code>    </><kw>return</><code> </><str>\"\"\"multi</>",
      "  <str>line\"\"\"</><code> </><kw>if</><code> x </><kw>else</><code> </><str>'a\\'b'</><code> + </><num>42</>",
      "  <kw>for</><code> f </><kw>in</><code> *.ts; </><kw>do</><code> echo </><str>\"$f # not a comment\"</><code> </><str>'it''s'</><code>; </><kw>done</><code> </><dim># done</>",
      "  <kw>fn</><code> f<'a>(s: &'a str) -> char { </><kw>let</><code> c = </><str>'x'</><code>; </><str>'\\n'</><code> }</>",
      "  <kw>func</><code> main() { s := </><str>`raw</>",
      "  <str>still raw`</><code>; n := </><num>10</><code> }</>",
      "  <code>{</><str>\"a\"</><code>: [</><num>1</><code>, -</><num>2.5</><code>, </><kw>true</><code>, </><kw>null</><code>]}</>",
      "  <code>plain code</>",
      "  <code>if x</>",
      "",
    ].join("\n"),
  );
});

test("task lists, strikethrough, autolinks, closing #s, spaced rules, setext underlines and a call's stars render as a terminal should show them", () => {
  assert.equal(
    render(MORE),
    [
      "☐ todo <i>item</>",
      "☒ done",
      "☒ also done",
      "1. ☐ numbered",
      "• <u>link</><dim> (x)</> and [ ]not a box",
      "<dim>────────────────────────────────────────</>",
      "<b>Closing hashes</>",
      "<b>Hash#tag #</>",
      "<b>Literal #</>",
      "<s>struck</> and ~not~ and a<s>b</>c, ~~ spaced ~~ ~~escaped~~ <code>~~code~~</>.",
      "See <u>https://example.com/a?b=1</> or <u>mail@example.com</>, not <br>, a<b or <https://x y>.",
      "<dim>────────────────────────────────────────</>",
      "<b+u>Shut</>",
      "",
      "Setext Title",
      "<dim>────────────────────────────────────────</>",
      "",
      "Subtitle",
      "<dim>────────────────────────────────────────</>",
      "Two lines",
      "of a paragraph",
      "<dim>────────────────────────────────────────</>",
      "",
      "A title that is far too long to be one, so it streams as it comes in",
      "<dim>────────────────────────────────────────</>",
      "Call f(*args, **kwargs) and g(x, *rest); but (<i>this</>) and <i>that</>.",
    ].join("\n"),
  );
});

test("the sample renders as a terminal should show it", () => {
  assert.equal(
    render(SAMPLE),
    [
      "<b+u>Plan</>",
      "",
      "Some <b>bold</>, <i>italic</>, <i>also</>, <b+i>both</> and <code>a *literal* \\</> span; snake_case stays, 2 * 3 = 6, src/*.ts and (<i>\"q\"</>).",
      "See <u>the docs</><dim> (https://example.com/docs)</> or <u>https://a.io</>, *not italic*.",
      "",
      "<b>Steps</>",
      "• one <b>strong</> step",
      "• two",
      "  1. nested <code>code</>",
      // Not a list's first item numbered 1, it goes on with the item's paragraph (CommonMark).
      "     12) twelve",
      "<dim>│ </>a quote with <i>style</>",
      "<dim>│ </>• and a list",
      "",
      "<dim>────────────────────────────────────────</>",
      "",
      "  <kw>const</><code> x = </><num>2</><code> * </><num>3</><code>; </><dim>// **not bold**</>",
      "  <code>    | not | a table |</>",
      "",
      "<dim>┌───────────┬───────┬───────┐</>",
      "<dim>│</> <b>Name</>      <dim>│</> <b>Count</> <dim>│</> <b>Where</> <dim>│</>",
      "<dim>├───────────┼───────┼───────┤</>",
      "<dim>│</> <b>a</>         <dim>│</>     1 <dim>│</> <code>here</>  <dim>│</>",
      "<dim>│</> bb        <dim>│</>    22 <dim>│</>       <dim>│</>",
      "<dim>│</> wide 漢字 <dim>│</>     3 <dim>│</>   x   <dim>│</>",
      "<dim>└───────────┴───────┴───────┘</>",
      "Text after the table.",
      "| only | one row |",
      "#hashtag, 1.5 and -dash, ~~~ and <code>x</>.",
      "  <code>tilde **code**</>",
      "End with *open",
    ].join("\n"),
  );
});

test("a table wider than the terminal has its widest columns narrowed and their cells wrapped", () => {
  const md = createMarkdownStream({ columns: () => 24 });
  const table = "| Key | Note |\n|---|---|\n| a | a rather long note, wrapped |\n| b | `verylongidentifier` |\n";
  assert.equal(
    styled(md.push(table) + md.end()),
    [
      "<dim>┌─────┬────────────────┐</>",
      "<dim>│</> <b>Key</> <dim>│</> <b>Note</>           <dim>│</>",
      "<dim>├─────┼────────────────┤</>",
      "<dim>│</> a   <dim>│</> a rather long  <dim>│</>",
      "<dim>│</>     <dim>│</> note, wrapped  <dim>│</>",
      "<dim>│</> b   <dim>│</> <code>verylongidenti</> <dim>│</>",
      "<dim>│</>     <dim>│</> <code>fier</>           <dim>│</>",
      "<dim>└─────┴────────────────┘</>",
      "",
    ].join("\n"),
  );
});

test("text appears as it comes: only what is still undecided is held", () => {
  const md = createMarkdownStream();
  // A paragraph's lines stream as they come, a short one too (it may turn out to be a setext
  // heading's title: its underline is then a rule under it).
  assert.equal(styled(md.push("Hi.\n")), "Hi.\n");
  assert.equal(styled(md.push("Hello wor")), "Hello wor");
  // A marker at a chunk's end waits for the character after it.
  assert.equal(styled(md.push("ld, *")), "ld, ");
  // Emphasis waits for its closer.
  assert.equal(styled(md.push("very")), "");
  assert.equal(styled(md.push("* good `")), "<i>very</> good ");
  assert.equal(styled(md.push("co")), "<code>co</>");
  assert.equal(styled(md.push("de` [")), "<code>de</> ");
  assert.equal(styled(md.push("site](https://x.io) ok\n")), "<u>site</><dim> (https://x.io)</> ok\n");
  // A line's first characters wait until its kind is known.
  assert.equal(styled(md.push("#")), "");
  assert.equal(styled(md.push("# Ti")), "<b>Ti</>");
  assert.equal(styled(md.push("tle\n-")), "<b>tle</>\n");
  assert.equal(styled(md.push(" item\n")), "• item\n");
  // A task's box, and a heading's closing #s, once the characters that make them have come.
  assert.equal(styled(md.push("- [")), "");
  assert.equal(styled(md.push("x] shipped\n## Done #")), "☒ shipped\n<b>Done</>");
  assert.equal(styled(md.push("# and more #")), "<b> ## and more</>");
  assert.equal(styled(md.push("\n")), "\n");
  assert.equal(styled(md.push("Title\n=")), "Title\n");
  assert.equal(styled(md.push("==\n")), `<dim>${"─".repeat(80)}</>\n`);
  // A * in a call's arguments opens no style, and is printed once the character after it has come.
  assert.equal(styled(md.push("- f(*")), "• f(");
  assert.equal(styled(md.push("a, **kw) *b*\n")), "*a, **kw) <i>b</>\n");
  // A code block's lines stream; its fence lines are not printed.
  assert.equal(styled(md.push("```\nnpm te")), "  <code>npm te</>");
  assert.equal(styled(md.push("st\n```\n")), "<code>st</>\n");
  // Coloured, a word or number at a chunk's end waits for the character after it; a string streams.
  assert.equal(styled(md.push("```js\nret")), "  ");
  assert.equal(styled(md.push("urn 1")), "<kw>return</><code> </>");
  assert.equal(styled(md.push("0 + \"a b")), "<num>10</><code> + </><str>\"a b</>");
  assert.equal(styled(md.push("\" // c\n```\n")), "<str>\"</><code> </><dim>// c</>\n");
  // A table is held until a line that is not one of its rows.
  assert.equal(styled(md.push("| a | b |\n|---|---|\n| 1 | 2 |\n")), "");
  // The line after it, a paragraph's first, waits for a pipe in its first characters (a header).
  assert.equal(
    styled(md.push("After")),
    "<dim>┌───┬───┐</>\n<dim>│</> <b>a</> <dim>│</> <b>b</> <dim>│</>\n<dim>├───┼───┤</>\n<dim>│</> 1 <dim>│</> 2 <dim>│</>\n<dim>└───┴───┘</>\n",
  );
  assert.equal(styled(md.push(" it\nand")), "After it\nand");
});

test("a reply cut off prints what was held, and what comes next starts afresh", () => {
  const md = createMarkdownStream();
  assert.equal(styled(md.push("a table:\n| x |\n|---|\n| 1 |")), "a table:\n");
  assert.equal(styled(md.end()), "<dim>┌───┐</>\n<dim>│</> <b>x</> <dim>│</>\n<dim>├───┤</>\n<dim>│</> 1 <dim>│</>\n<dim>└───┘</>\n");
  assert.equal(styled(md.push("```\ncode")), "  <code>code</>");
  assert.equal(styled(md.end()), "");
  // After the end the code block is over: this is a heading again.
  assert.equal(styled(md.push("## Next *")), "<b>Next </>");
  assert.equal(styled(md.end()), "<b>*</>");
  assert.equal(styled(md.push("| a")), "");
  assert.equal(styled(md.end()), "| a");
});

test("each piece printed closes the styles it opens", () => {
  const md = createMarkdownStream();
  for (const piece of [md.push("**bold** and `co"), md.push("de` and *ital"), md.push("ic* ~~x~~ #\n"), md.end()]) {
    const codes = piece.match(/\x1b\[[\d;]*m/g) ?? [];
    assert.ok(codes.length === 0 || codes.at(-1) === "\x1b[0m", JSON.stringify(piece));
  }
});

test("a long run of what is undecided, streamed a character at a time, costs as much as its length, not its square", () => {
  const n = 20_000;
  const replies = {
    backticks: "`".repeat(n),
    stars: `a ${"*".repeat(n)}`,
    tildes: "~".repeat(n),
    "a line of dashes": "-".repeat(n),
    "a line of spaces": `${" ".repeat(n)}x`,
    "a table row": `|${"x".repeat(n)}`,
    "an underline": `Title\n${"=".repeat(n)}`,
    "words after an unclosed star": `a *${"word ".repeat(n / 5)}`,
    "a fence line": `\`\`\`\n${"`".repeat(n)}`,
    "a word in code": `\`\`\`ts\n${"x".repeat(n)}`,
    "a number in code": `\`\`\`ts\n${"1".repeat(n)}`,
    "spaces in a quote": `> ${" ".repeat(n)}x`,
    "quotes in quotes": "> ".repeat(n / 2),
    "spaces in a list item": `- a\n${" ".repeat(n)}b`,
    "items in items": "1. ".repeat(n / 3),
  };
  for (const [name, reply] of Object.entries(replies)) {
    let read = 0;
    const md = createMarkdownStream({ columns: () => 40, meter: (chars) => (read += chars) });
    const out = Array.from(reply, (char) => md.push(char)).join("") + md.end();
    assert.equal(styled(out), render(reply), name);
    assert.ok(read >= reply.length && read < 20 * reply.length, `${name}: ${read} characters read for ${reply.length}`);
  }
});

test("a table too long to hold shows its first rows laid out for them, then each row as it comes", () => {
  const md = createMarkdownStream({ columns: () => 40 });
  assert.equal(md.push("| n | word |\n|--:|---|\n"), "");
  let out = "";
  for (let i = 1001; i <= 2000; i++) out += md.push(`| ${i} | ${i === 1150 ? "a much longer word" : "w"} |\n`);
  // Held are the first hundred lines; what comes after them is printed row by row.
  const shown = styled(out).split("\n");
  assert.equal(shown.at(-2), "<dim>│</> 2000 <dim>│</> w    <dim>│</>");
  assert.ok(shown.includes("<dim>│</> 1001 <dim>│</> w    <dim>│</>"), shown.slice(0, 5).join("\n"));
  // A cell wider than the columns laid out is wrapped to them.
  assert.ok(shown.includes("<dim>│</> 1150 <dim>│</> a    <dim>│</>") && shown.includes("<dim>│</>      <dim>│</> much <dim>│</>"), shown.slice(150, 156).join("\n"));
  assert.equal(styled(md.push("| 2001 | w |\nEnd\n")), "<dim>│</> 2001 <dim>│</> w    <dim>│</>\n<dim>└──────┴──────┘</>\nEnd\n");
  // Lines that start with a pipe but are no table are printed as they come.
  const text = createMarkdownStream();
  assert.equal(styled(text.push("| a |\n| b |\n| *c* |\n")), "| a |\n| b |\n| <i>c</> |\n");
  assertChunkingInvariant(`Rows:\n| a | b |\n|---|:-:|\n${Array.from({ length: 120 }, (_, i) => `| ${i} | ${"x".repeat(i % 7)} |\n`).join("")}after`);
});

test("a 200 KB line with an unclosed star near its start streams, a character at a time, in time linear in its length", () => {
  const line = `Use *args ${"and more words ".repeat(15_000)}`.slice(0, 200_000);
  let read = 0;
  const md = createMarkdownStream({ meter: (chars) => (read += chars) });
  let out = "";
  for (const char of line) out += md.push(char);
  // Past the reach of the star the line streams: all but the last few characters are out.
  assert.ok(out.length > line.length - 600, `${out.length} of ${line.length} printed`);
  out += md.end();
  assert.ok(out === line, `printed as written: ${JSON.stringify(out.slice(0, 60))}…`);
  assert.ok(read < 20 * line.length, `${read} characters read for ${line.length}`);
});

test("a line of openers that nothing closes (*a *a *a …) renders in work linear in its length, whole or streamed", () => {
  for (const unit of ["*a ", "**a ", "_a ", "~~a ", "*a*** "]) {
    const line = unit.repeat(10_000);
    const whole = render(line);
    for (const size of [line.length, 500, 7]) {
      let read = 0;
      const md = createMarkdownStream({ meter: (chars) => (read += chars) });
      let out = "";
      for (let i = 0; i < line.length; i += size) out += md.push(line.slice(i, i + size));
      out += md.end();
      assert.ok(styled(out) === whole, `${unit} in chunks of ${size}: as rendered whole`);
      if (unit !== "*a*** ") assert.ok(out === line, `${unit} in chunks of ${size}: printed as written`);
      // Whole or in long chunks, a few readings of each character; in short ones, each chunk costs
      // at most a few times the text an opener holds (REACH), however long the line.
      const bound = size === 7 ? 4 * REACH * Math.ceil(line.length / size) : 20 * line.length;
      assert.ok(read < bound, `${unit} in chunks of ${size}: ${read} read for ${line.length} characters`);
    }
  }
});

test("a long line with unclosed stars is held back no further than a star's reach, a few hundred characters", () => {
  const lines = {
    "one star near its start": `Call it with *args and then ${Array.from({ length: 300 }, (_, i) => `w${i}`).join(" ")}`,
    "a star every ninety characters": Array.from({ length: 60 }, (_, i) => `use *a${i} ${"x".repeat(80)} `).join(""),
  };
  for (const [name, line] of Object.entries(lines)) {
    const md = createMarkdownStream();
    let printed = 0;
    let held = 0;
    for (let i = 0; i < line.length; i += 3) {
      printed += styled(md.push(line.slice(i, i + 3))).length;
      held = Math.max(held, Math.min(i + 3, line.length) - printed);
    }
    assert.ok(held <= 303, `${name}: ${held} characters held back`);
  }
});
