// Latency and throughput of text deltas: fake model → runner → session → WebSocket client.
import Anthropic from "@anthropic-ai/sdk";
import { childrenRss, cpuMs, machineNow, percentile, StampCounter } from "./lib.ts";

export type LatencyFigures = { p50: number; p99: number; samples: number };

function summarize(latencies: number[]): LatencyFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), samples: sorted.length };
}

/** `sessions` sessions stream `count` stamped deltas each, one every `intervalMs`, at the same time,
 * twice: the first streaming run of each session meets runner processes whose code is not yet
 * optimised ("first"); the second shows them warm ("warm"). All runs are submitted at once. With
 * `inStep`, every stream ticks in the same millisecond (a burst of one delta per session every
 * interval: the worst case); otherwise each starts at its own offset within the first interval,
 * as independent model streams would. */
export async function measureLatency(
  url: string,
  sessions: number,
  count: number,
  intervalMs: number,
  options: {
    inStep?: boolean;
    /** Whose runner processes to count (its children). */
    serverPid?: number;
    /** The processes whose CPU the warm pass is charged with (`warmCpuUsPerDelta`). */
    processes?: () => Promise<number[]>;
  } = {},
): Promise<{ first: LatencyFigures; warm: LatencyFigures; runners: { count: number; kib: number }; warmCpuUsPerDelta?: number }> {
  const { inStep = false, serverPid, processes } = options;
  const run = `lat${sessions}-${Date.now()}`;
  const clients = await Promise.all(Array.from({ length: sessions }, (_, i) => StampCounter.open(url, "bench", `${run}-${i}`)));
  // Every session starts its runner and completes one short run before anything is measured.
  await Promise.all(clients.map((c) => c.run("hello")));
  const pass = async () => {
    for (const c of clients) c.reset();
    await Promise.all(clients.map((c) => c.run(`paced ${count} ${intervalMs} ${inStep ? 0 : (Math.random() * intervalMs).toFixed(1)}`)));
    return summarize(clients.flatMap((c) => c.latencies));
  };
  const first = await pass();
  const pids = processes ? await processes() : [];
  const cpuBefore = await cpuMs(pids);
  const warm = await pass();
  const cpuUsed = (await cpuMs(pids)) - cpuBefore;
  // The runner processes are still up (they outlive a run): count them and their memory.
  const runners = serverPid === undefined ? { count: 0, kib: 0 } : await childrenRss(serverPid);
  for (const c of clients) c.close();
  return { first, warm, runners, ...(processes && { warmCpuUsPerDelta: (cpuUsed * 1000) / warm.samples }) };
}

/** One session receives `count` deltas that the fake model writes as fast as it can. */
export async function measureThroughput(url: string, count: number): Promise<{ perSecond: number; count: number }> {
  const client = await StampCounter.open(url, "bench", `thr-${Date.now()}`);
  await client.run("hello");
  client.reset();
  const started = machineNow();
  await client.run(`burst ${count}`);
  const elapsed = client.lastAt - started;
  client.close();
  if (client.received !== count) throw new Error(`throughput run received ${client.received} of ${count} deltas`);
  return { perSecond: (count / elapsed) * 1000, count };
}

/** The same fake model read directly with the Anthropic SDK from this process, by `streams` readers
 * at once at the same pace as the sessions: the floor any client pays, timing included. */
export async function sdkBaseline(baseURL: string, streams: number, count: number, intervalMs: number, inStep = false): Promise<LatencyFigures> {
  const client = new Anthropic({ apiKey: "bench", baseURL, maxRetries: 0 });
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: streams }, () =>
      read(client, `paced ${count} ${intervalMs} ${inStep ? 0 : (Math.random() * intervalMs).toFixed(1)}`, (text, at) => latencies.push(at - Number(/⟦(\d+\.\d+)⟧/.exec(text)?.[1]))),
    ),
  );
  return summarize(latencies);
}

/** One reader of `burst` deltas written as fast as the fake model can: deltas per second. */
export async function sdkThroughput(baseURL: string, burst: number): Promise<number> {
  const client = new Anthropic({ apiKey: "bench", baseURL, maxRetries: 0 });
  let received = 0;
  let last = 0;
  const started = machineNow();
  await read(client, `burst ${burst}`, (_text, at) => {
    received++;
    last = at;
  });
  return (received / (last - started)) * 1000;
}

async function read(client: Anthropic, prompt: string, onText: (text: string, at: number) => void): Promise<void> {
  const stream = await client.messages.create({
    model: "bench",
    max_tokens: 1024,
    stream: true,
    messages: [{ role: "user", content: prompt }],
  });
  for await (const event of stream) {
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") onText(event.delta.text, machineNow());
  }
}
