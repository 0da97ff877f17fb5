// The worker thread that shrinks one image (image-shrink.ts) and answers with the result.
import { parentPort, workerData } from "node:worker_threads";
import { shrinkImage, type ShrinkLimits } from "./image-shrink.ts";
import type { ImageType } from "./image-size.ts";

const { bytes, type, limits } = workerData as { bytes: Uint8Array; type: ImageType; limits: ShrinkLimits };
parentPort?.postMessage(await shrinkImage(bytes, type, limits));
