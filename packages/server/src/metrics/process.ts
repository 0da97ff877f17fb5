// The server process's own figures for GET /metrics: memory, CPU, event-loop delay, uptime.
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Family } from "./exposition.ts";

export type ProcessMetrics = {
  /** The families as of now; the event-loop delay's quantiles are of the delays since the last scrape. */
  families(): Family[];
  stop(): void;
};

/** Delays are sampled this often (ms). */
const RESOLUTION_MS = 10;

export function processMetrics(): ProcessMetrics {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  // A summary's sum and count only grow; the histogram is reset at each scrape for its quantiles.
  let delaySumSeconds = 0;
  let delayCount = 0;
  return {
    families() {
      const memory = process.memoryUsage();
      const cpu = process.cpuUsage();
      const observed = delay.count;
      const quantile = (q: number) => (observed === 0 ? NaN : delay.percentile(q) / 1e9);
      const quantiles = [
        { labels: { quantile: "0.5" }, value: quantile(50) },
        { labels: { quantile: "0.99" }, value: quantile(99) },
      ];
      if (observed > 0) {
        delaySumSeconds += (delay.mean * observed) / 1e9;
        delayCount += observed;
      }
      delay.reset();
      return [
        { name: "process_resident_memory_bytes", help: "Resident memory of the server process.", type: "gauge", samples: [{ value: memory.rss }] },
        { name: "nodejs_heap_used_bytes", help: "V8 heap in use by the server process.", type: "gauge", samples: [{ value: memory.heapUsed }] },
        { name: "process_cpu_seconds_total", help: "CPU time (user and system) the server process has used.", type: "counter", samples: [{ value: (cpu.user + cpu.system) / 1e6 }] },
        {
          name: "nodejs_eventloop_delay_seconds",
          help: "Event-loop delay of the server process: quantiles since the previous scrape; sum and count since start.",
          type: "summary",
          samples: [...quantiles, { suffix: "_sum", value: delaySumSeconds }, { suffix: "_count", value: delayCount }],
        },
        { name: "process_uptime_seconds", help: "Seconds since the server process started.", type: "gauge", samples: [{ value: process.uptime() }] },
      ];
    },
    stop: () => delay.disable(),
  };
}
