// A JPEG's samples as RGB, as libjpeg and browsers see them: one component is grey; three are
// YCbCr, or RGB where an Adobe marker says no transform (or the components are named R, G, B);
// four are CMYK, YCCK where the Adobe marker says so, and stored inverted when an Adobe marker is
// there (as Photoshop writes them), plain otherwise.

/** Writes the pixel of `samples` (one per component) as RGBA; the array clamps and rounds. */
export type Colour = (samples: number[], out: Uint8ClampedArray, at: number) => void;

/** `ids`: the frame's component ids, in order. */
export function colourOf(ids: number[], adobeTransform: number | undefined): Colour {
  switch (ids.length) {
    case 1:
      return ([y], out, at) => rgb(out, at, y!, y!, y!);
    case 3:
      if (adobeTransform === 0 || (adobeTransform === undefined && String.fromCharCode(...ids) === "RGB")) return ([r, g, b], out, at) => rgb(out, at, r!, g!, b!);
      return ([y, cb, cr], out, at) => ycc(out, at, y!, cb!, cr!);
    case 4: {
      const inverted = adobeTransform !== undefined;
      return ([c0, c1, c2, k], out, at) => {
        // YCCK is CMYK whose first three went through YCbCr as their inverses (libjpeg's view).
        if (adobeTransform === 2) {
          ycc(out, at, c0!, c1!, c2!);
          c0 = 255 - out[at]!;
          c1 = 255 - out[at + 1]!;
          c2 = 255 - out[at + 2]!;
        }
        // Ink is 255 - sample where the samples are inverted; light left is 255 - ink, of both.
        const light = (ink: number) => (inverted ? ink * k! : (255 - ink) * (255 - k!)) / 255;
        rgb(out, at, light(c0!), light(c1!), light(c2!));
      };
    }
    default:
      throw new Error(`it has ${ids.length} colour components`);
  }
}

function rgb(out: Uint8ClampedArray, at: number, r: number, g: number, b: number): void {
  out[at] = r;
  out[at + 1] = g;
  out[at + 2] = b;
  out[at + 3] = 255;
}

function ycc(out: Uint8ClampedArray, at: number, y: number, cb: number, cr: number): void {
  rgb(out, at, y + 1.402 * (cr - 128), y - 0.344136 * (cb - 128) - 0.714136 * (cr - 128), y + 1.772 * (cb - 128));
}
