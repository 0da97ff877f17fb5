// `harness run` reading a PDF: the Read tool's result reaches the model as a document block, as
// Claude Code sends it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** A one-page PDF, written out by hand with its cross-reference offsets counted. */
function onePagePdf(): Buffer {
  return pdfOf(["<< /Length 36 >>\nstream\nBT /F1 24 Tf 72 720 Td (Hi) Tj ET\n\nendstream"]);
}

/** A PDF whose pages draw "Page N" and an image of `imageBytes` bytes each: a large file, quickly. */
function bookPdf(pageCount: number, imageBytes: number): Buffer {
  return pdfOf(
    Array.from({ length: pageCount }, (_, i) => `<< /Length 50 >>\nstream\n/Im1 Do BT 72 720 Td (Page ${String(i + 1).padStart(3, "0")}) Tj ET\n\nendstream`),
    imageBytes,
  );
}

/** A PDF of pages with these content streams, each with an image of `imageBytes` bytes if asked. */
function pdfOf(contents: string[], imageBytes = 0): Buffer {
  const perPage = imageBytes > 0 ? 3 : 2;
  const pageNum = (i: number) => 3 + i * perPage;
  const objects: (string | Buffer)[] = ["<< /Type /Catalog /Pages 2 0 R >>", `<< /Type /Pages /Kids [${contents.map((_, i) => `${pageNum(i)} 0 R`).join(" ")}] /Count ${contents.length} >>`];
  contents.forEach((content, i) => {
    const image = imageBytes > 0 ? ` /Resources << /XObject << /Im1 ${pageNum(i) + 2} 0 R >> >>` : "";
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageNum(i) + 1} 0 R${image} >>`, content);
    if (imageBytes > 0) {
      const header = `<< /Type /XObject /Subtype /Image /Width ${imageBytes} /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${imageBytes} >>\nstream\n`;
      objects.push(Buffer.concat([Buffer.from(header), Buffer.alloc(imageBytes, i), Buffer.from("\nendstream")]));
    }
  });
  const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  let length = chunks[0].length;
  const offsets = objects.map((body, i) => {
    const at = length;
    for (const piece of [Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body, "latin1"), Buffer.from("\nendobj\n")]) {
      chunks.push(piece);
      length += piece.length;
    }
    return at;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...chunks, Buffer.from(tail, "latin1")]);
}

type ToolResult = { tool_use_id: string; is_error?: boolean; content: string | { type: string; text?: string; source?: Record<string, string> }[] };

/** The tool_result blocks of a request the fake model received. */
function toolResults(body: Record<string, unknown>): ToolResult[] {
  const messages = body.messages as { role: string; content: unknown }[];
  return messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === "tool_result");
}

test("run: Read of a PDF gives the model the document in the tool_result", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [{ toolUses: [{ id: "toolu_pdf", name: "Read", input: { file_path: "paper.pdf" } }] }, { text: "It says Hi." }],
    }),
  );
  const dir = tempDir(t);
  const pdf = onePagePdf();
  writeFileSync(join(dir, "paper.pdf"), pdf);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "what does paper.pdf say?"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /It says Hi\./);
  const results = toolResults(fake.requests[1]!.body);
  assert.equal(results.length, 1);
  const [result] = results as (ToolResult & { content: { type: string; text?: string; source?: Record<string, string> }[] })[];
  assert.equal(result.tool_use_id, "toolu_pdf");
  assert.equal(result.is_error, undefined);
  const document = result.content.find((b) => b.type === "document");
  assert.deepEqual(document?.source, { type: "base64", media_type: "application/pdf", data: pdf.toString("base64") });
  assert.ok(result.content.some((b) => b.type === "text" && /^Read PDF paper\.pdf \(1 page, [\d.]+ bytes\)\.$/.test(b.text!)), JSON.stringify(result.content).slice(0, 500));
});

test("run: Read of a PDF too large to send says to pick pages, and pages of it reach the model alone", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_whole", name: "Read", input: { file_path: "book.pdf" } }] },
        { toolUses: [{ id: "toolu_page", name: "Read", input: { file_path: "book.pdf", pages: "7" } }] },
        { text: "Page 7 has a picture." },
      ],
    }),
  );
  const dir = tempDir(t);
  const imageBytes = 1024 * 1024;
  writeFileSync(join(dir, "book.pdf"), bookPdf(24, imageBytes));
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "what is on page 7 of book.pdf?"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /Page 7 has a picture\./);

  const [refused] = toolResults(fake.requests[1]!.body);
  assert.equal(refused.is_error, true);
  const refusal = typeof refused.content === "string" ? refused.content : refused.content.map((b) => b.text ?? "").join("");
  assert.match(refusal, /book\.pdf is 24\.\d\d MB; Read sends PDFs of at most 20\.00 MB to the model\. It has 24 pages: call Read again with pages, e\.g\. pages: "1-19"/);

  // The request that carries page 7 is about one page's size, not the file's.
  assert.ok(JSON.stringify(fake.requests[2]!.body).length < 1.5 * imageBytes * (4 / 3), "the request carries more than page 7");
  const page = toolResults(fake.requests[2]!.body).find((r) => r.tool_use_id === "toolu_page")!;
  assert.equal(page.is_error, undefined);
  const document = Array.isArray(page.content) ? page.content.find((b) => b.type === "document") : undefined;
  const sent = Buffer.from(document!.source!.data, "base64");
  assert.ok(sent.length > imageBytes && sent.length < imageBytes + 4096, `${sent.length} bytes sent`);
  assert.ok(sent.includes("(Page 007)") && !sent.includes("(Page 006)") && !sent.includes("(Page 008)"));
});
