// What the OpenTelemetry end-to-end tests share: a scripted reply that runs Bash, then answers
// "It printed <word>.", and a fake collector closed after the test.
import { startFakeOtlpCollector, type FakeOtlpCollector } from "@harness/test-utils";

/** A Bash call (`echo <word>` unless `command` is given), then the answer; with usage on both. */
export const bashThenAnswer = (word: string, command = `echo ${word}`) => [
  { toolUses: [{ name: "Bash", input: { command, description: "say ok" } }], usage: { input_tokens: 100, output_tokens: 20 } },
  { text: `It printed ${word}.`, usage: { input_tokens: 150, output_tokens: 10, cache_read_input_tokens: 40 } },
];

export async function collector(t: { after(fn: () => unknown): void }, options: { grpc?: boolean } = {}): Promise<FakeOtlpCollector> {
  const c = await startFakeOtlpCollector(options);
  t.after(() => c.close());
  return c;
}
