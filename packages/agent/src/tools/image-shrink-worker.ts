// The worker thread that shrinks one image (image-shrink.ts) and answers with the result.
import { parentPort, workerData } from "node:worker_threads";
import { shrinkImage, type ShrinkLimits, type ShrinkType } from "./image-shrink.ts";

const { bytes, type, limits } = workerData as { bytes: Uint8Array; type: ShrinkType; limits: ShrinkLimits };
parentPort?.postMessage(await shrinkImage(bytes, type, limits));
