// The clients that time the deltas, in a process of their own. The process that runs the benchmarks
// also holds every other measurement's modules, fake servers and request logs; a collection of that
// heap (10+ ms) would be charged to whatever stream it paused. Here the heap holds only the sockets
// and the latencies, for our sessions and the baselines alike.
// Commands arrive on stdin, one JSON line each, and are answered in order on stdout, one JSON line
// each ({"error": …} when one fails). Exits when stdin closes.
import { createInterface } from "node:readline";
import Anthropic from "@anthropic-ai/sdk";
import { machineNow, StampCounter } from "./lib.ts";

export type ClientCommand =
  /** Connects `sessions` clients to a session server, the i-th to session `${prefix}-${i}`. */
  | { op: "open"; url: string; sessions: number; prefix: string }
  /** The i-th open client submits prompts[i]; answers once every session is idle again. */
  | { op: "pass"; prompts: string[] }
  | { op: "close" }
  /** One client submits `burst N`: deltas per second from its first to its last. */
  | { op: "throughput"; url: string; count: number }
  /** Streams of the model read directly with the Anthropic SDK, one per prompt. */
  | { op: "sdk"; baseURL: string; prompts: string[] }
  | { op: "sdkThroughput"; baseURL: string; burst: number };

/** `streams`: each stream's latencies, in the order its deltas were written; `stamps`: when each of
 * those deltas was written (the machine's monotonic clock, ms); `firstDeltas`: each stream's
 * milliseconds from submit to its first delta. */
export type ClientAnswer = { streams?: number[][]; stamps?: number[][]; firstDeltas?: number[]; perSecond?: number; received?: number; error?: string };

const STAMP = /⟦(\d+\.\d+)⟧/;
let clients: StampCounter[] = [];

async function handle(command: ClientCommand): Promise<ClientAnswer> {
  switch (command.op) {
    case "open":
      clients = await Promise.all(Array.from({ length: command.sessions }, (_, i) => StampCounter.open(command.url, "bench", `${command.prefix}-${i}`)));
      return {};
    case "pass":
      if (command.prompts.length !== clients.length) throw new Error(`pass has ${command.prompts.length} prompts for ${clients.length} clients`);
      for (const c of clients) c.reset();
      await Promise.all(clients.map((c, i) => c.run(command.prompts[i])));
      return { streams: clients.map((c) => [...c.latencies]), stamps: clients.map((c) => [...c.stamps]), firstDeltas: clients.map((c) => c.firstDeltaMs) };
    case "close":
      for (const c of clients) c.close();
      clients = [];
      return {};
    case "throughput": {
      const client = await StampCounter.open(command.url, "bench", `thr-${Date.now()}`);
      await client.run("hello");
      client.reset();
      const started = machineNow();
      await client.run(`burst ${command.count}`);
      client.close();
      return { perSecond: (client.received / (client.lastAt - started)) * 1000, received: client.received };
    }
    case "sdk": {
      const sdk = new Anthropic({ apiKey: "bench", baseURL: command.baseURL, maxRetries: 0 });
      const streams = command.prompts.map((): number[] => []);
      await Promise.all(command.prompts.map((prompt, i) => read(sdk, prompt, (text, at) => streams[i].push(at - Number(STAMP.exec(text)?.[1])))));
      return { streams };
    }
    case "sdkThroughput": {
      const sdk = new Anthropic({ apiKey: "bench", baseURL: command.baseURL, maxRetries: 0 });
      let received = 0;
      let last = 0;
      const started = machineNow();
      await read(sdk, `burst ${command.burst}`, (_text, at) => {
        received++;
        last = at;
      });
      return { perSecond: (received / (last - started)) * 1000, received };
    }
  }
}

async function read(sdk: Anthropic, prompt: string, onText: (text: string, at: number) => void): Promise<void> {
  const stream = await sdk.messages.create({ model: "bench", max_tokens: 1024, stream: true, messages: [{ role: "user", content: prompt }] });
  for await (const event of stream) {
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") onText(event.delta.text, machineNow());
  }
}

// One command at a time, in the order they came.
let queue = Promise.resolve();
createInterface({ input: process.stdin })
  .on("line", (line) => {
    queue = queue.then(async () => {
      const answer = await handle(JSON.parse(line) as ClientCommand).catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
      process.stdout.write(`${JSON.stringify(answer)}\n`);
    });
  })
  .on("close", () => void queue.finally(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
