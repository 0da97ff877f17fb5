// The fake model in a process of its own, so that its timers and writes do not share an event loop
// with the clients that time the deltas. Prints {"url": …} once listening; exits when stdin closes.
import { startFakeAnthropic } from "@harness/test-utils";
import { benchReply } from "./scenarios.ts";

const fake = await startFakeAnthropic({ respond: (req) => benchReply(req), keepRequests: false });
process.stdout.write(`${JSON.stringify({ url: fake.url })}\n`);
process.stdin.on("close", () => void fake.close().finally(() => process.exit(0)));
process.stdin.resume();
