// `harness run` reading a PDF: the Read tool's result reaches the model as a document block, as
// Claude Code sends it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "./test-support.ts";

/** A one-page PDF, written out by hand with its cross-reference offsets counted. */
function onePagePdf(): Buffer {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
    "<< /Length 36 >>\nstream\nBT /F1 24 Tf 72 720 Td (Hi) Tj ET\n\nendstream",
  ];
  let out = "%PDF-1.4\n";
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
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
  const messages = fake.requests[1]!.body.messages as { role: string; content: unknown }[];
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === "tool_result");
  assert.equal(results.length, 1);
  const [result] = results as { tool_use_id: string; is_error?: boolean; content: { type: string; text?: string; source?: Record<string, string> }[] }[];
  assert.equal(result.tool_use_id, "toolu_pdf");
  assert.equal(result.is_error, undefined);
  const document = result.content.find((b) => b.type === "document");
  assert.deepEqual(document?.source, { type: "base64", media_type: "application/pdf", data: pdf.toString("base64") });
  assert.ok(result.content.some((b) => b.type === "text" && /^Read PDF paper\.pdf \(1 page, [\d.]+ bytes\)\.$/.test(b.text!)), JSON.stringify(result.content).slice(0, 500));
});
