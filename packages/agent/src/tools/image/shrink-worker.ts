// The worker thread that shrinks one image (shrink.ts) and answers with the result.
import { parentPort, workerData } from "node:worker_threads";
import { shrinkImage, type ShrinkLimits } from "./shrink.ts";
import type { ImageType } from "./size.ts";

const { bytes, type, limits } = workerData as { bytes: Uint8Array; type: ImageType; limits: ShrinkLimits };
parentPort?.postMessage(await shrinkImage(bytes, type, limits));
