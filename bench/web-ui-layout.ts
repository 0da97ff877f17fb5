// What a streamed text delta costs the web UI's page in Chromium at the end of a long conversation:
// `node bench/web-ui-layout.ts [rounds]` (under Node 24: `bash scripts/node.sh bench/web-ui-layout.ts`;
// needs Debian's `chromium`, as the web UI's tests do). A session of 300 messages (each reply a few
// Markdown paragraphs and a code block) is opened in headless Chromium at 1280×800, then replies of
// 100 deltas stream into it; Chromium's own counters (CDP Performance.getMetrics) give the layout
// and style time per delta. Three pages alternate, `rounds` replies each: "before", every message
// rendered in full and the conversation's box contained in nothing (style sheets the bench adds undo
// the page's `contain` and `content-visibility`); "contained", the box contained only; "after", the
// page as it ships, where finished messages off screen are skipped too;
// the medians are printed. Not part of `npm run bench`: it needs a browser.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MinimalClient, startChromium, startFakeAnthropic, startHarnessServer, waitFor, type ChromiumPage } from "@harness/test-utils";
import { median } from "./lib.ts";

const PROMPTS = 150;
const DELTAS = 100;
const rounds = Number(process.argv[2] ?? 5);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds: must be a whole number from 1, got ${process.argv[2]}`);

const reply = (i: number) =>
  `Reply ${i}: the build failed in **step three**, where the test of the parser expects a token the lexer no longer makes.\n\n` +
  `- the lexer's change in \`lex.ts\`\n- the parser's test in \`parse.test.ts\`\n\n` +
  "```ts\nexpect(tokens(\"a + b\")).toEqual([\"a\", \"+\", \"b\"]);\n```\n\n" +
  `A longer paragraph follows, to give the message the height a real answer has, wrapping over a few lines at the width of the page: ${"more words ".repeat(30)}`;

const dataDir = await mkdtemp(join(tmpdir(), "harness-bench-web-ui-"));
const fake = await startFakeAnthropic({ replies: Array.from({ length: PROMPTS }, (_, i) => ({ text: reply(i) })) });
const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "bench" } });
const chromium = await startChromium();
try {
  const client = await MinimalClient.connect(server.url, { userId: "bench", sessionId: "long" });
  for (let i = 0; i < PROMPTS; i++) {
    client.send({ type: "submit", prompt: `prompt ${i}: why does the build fail?` });
    await client.waitForState((s) => s.messages.length === 2 * (i + 1) && s.status === "idle", 15_000, `reply ${i}`);
  }
  await client.close();

  const page = await chromium.newPage();
  await page.send("Emulation.setDeviceMetricsOverride", { width: 1280, height: 800, deviceScaleFactor: 1, mobile: false });
  await page.navigate(`${server.url}/#session=long`);
  const until = (expression: string, what: string) => waitFor(async () => Boolean(await page.evaluate(expression).catch(() => false)), what, { timeoutMs: 30_000 });
  await until(`document.querySelectorAll("#conversation .message").length >= ${2 * PROMPTS}`, "the conversation to show");
  await page.send("Performance.enable", { timeDomain: "threadTicks" });
  // Style sheets of the bench's own (the page's policy allows constructed ones).
  await page.evaluate(`(() => {
    const sheet = (rules) => { const s = new CSSStyleSheet(); s.replaceSync(rules); return s; };
    window.uncontained = sheet("#conversation { contain: none !important; }");
    window.unskipped = sheet("#conversation .message { content-visibility: visible !important; }");
  })()`);

  const VARIANTS = { before: "[window.uncontained, window.unskipped]", contained: "[window.unskipped]", after: "[]" };
  type Variant = keyof typeof VARIANTS;
  const figures = Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, { layoutMs: [] as number[], styleMs: [] as number[], layouts: [] as number[] }])) as Record<Variant, { layoutMs: number[]; styleMs: number[]; layouts: number[] }>;
  let replies = PROMPTS;
  for (let round = 0; round < rounds; round++) {
    for (const variant of Object.keys(VARIANTS) as Variant[]) {
      await page.evaluate(`document.adoptedStyleSheets = ${VARIANTS[variant]}`);
      fake.push({ text: Array.from({ length: DELTAS }, (_, i) => `word${i} `), delayMs: 20 });
      const start = await metrics(page);
      await page.evaluate(`(() => { const p = document.getElementById("prompt"); p.value = "go on"; document.getElementById("composer").requestSubmit(); })()`);
      replies++;
      await until(
        `document.querySelectorAll('#conversation .message[data-role="assistant"]').length === ${replies} && [...document.querySelectorAll('#conversation .message[data-role="assistant"]')].pop().dataset.status === "complete"`,
        "the reply to complete",
      );
      const end = await metrics(page);
      figures[variant].layoutMs.push(((end.LayoutDuration - start.LayoutDuration) * 1000) / DELTAS);
      figures[variant].styleMs.push(((end.RecalcStyleDuration - start.RecalcStyleDuration) * 1000) / DELTAS);
      figures[variant].layouts.push((end.LayoutCount - start.LayoutCount) / DELTAS);
    }
  }
  console.log(`A delta at the end of ${2 * PROMPTS}+ messages, medians of ${rounds} replies of ${DELTAS} deltas each:`);
  for (const variant of Object.keys(VARIANTS) as Variant[]) {
    const f = figures[variant];
    console.log(`  ${variant.padEnd(9)}  layout ${median(f.layoutMs).toFixed(2)} ms  style ${median(f.styleMs).toFixed(2)} ms  layouts ${median(f.layouts).toFixed(2)} per delta`);
  }
  await page.close();
} finally {
  await chromium.close();
  await server.stop();
  await fake.close();
  await rm(dataDir, { recursive: true, force: true });
}

async function metrics(page: ChromiumPage): Promise<Record<string, number>> {
  const { metrics } = (await page.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] };
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}
