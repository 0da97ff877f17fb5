// The fake model's behaviour in the benchmarks, chosen by the prompt:
//   "paced <count> <intervalMs> [offsetMs]"  stamped text deltas at a steady pace (latency), the
//                                first after offsetMs (so that many streams need not tick in step)
//   "burst <count>"               stamped text deltas as fast as they can be written (throughput)
//   anything else                 a one-word reply
import type { FakeReply, RecordedRequest } from "@harness/test-utils";
import { sleep, stamp } from "./lib.ts";

function lastPrompt(req: RecordedRequest): string {
  const last = req.body?.messages?.at(-1);
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return last.content.map((b: { text?: string }) => b.text ?? "").join("");
}

export function benchReply(req: RecordedRequest): FakeReply {
  const [kind, a, b, c] = lastPrompt(req).split(" ");
  if (kind === "paced") {
    const count = Number(a);
    const interval = Number(b);
    const offset = Number(c ?? 0);
    return {
      textChunks: async function* () {
        if (offset > 0) await sleep(offset);
        for (let i = 0; i < count; i++) {
          yield stamp();
          await sleep(interval);
        }
      },
    };
  }
  if (kind === "burst") {
    const count = Number(a);
    return {
      textChunks: function* () {
        for (let i = 0; i < count; i++) yield stamp();
      },
    };
  }
  return { text: "ok" };
}
