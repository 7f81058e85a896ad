/**
 * hdr-histogram-js, loaded by the parts a run uses. Its entry loads everything the library has
 * (the WebAssembly build as base64, pako): about 40 ms of a run's start-up before its first
 * request and ~15 MB of RSS, for histograms that are plain JS and encoded only when the report
 * is written. A run builds its histograms from the 32-bit JS class alone (what `build` returns
 * for `bitBucketSize: 32` without WebAssembly) and loads the JS histograms' compressed encoding
 * on the first encode or decode. The package has no `exports` map, so its `dist/` files are its
 * public paths; `test/collect/histogram.test.ts` holds all of this to the library's own
 * `build`, encoding and decoding.
 */
import { createRequire } from 'node:module';
import type { JsHistogram } from 'hdr-histogram-js';

const require = createRequire(import.meta.url);

/** What `build` takes, for the JS 32-bit histograms this toolkit keeps. */
export interface JsHistogramShape {
  readonly lowestDiscernibleValue: number;
  readonly highestTrackableValue: number;
  readonly numberOfSignificantValueDigits: 1 | 2 | 3 | 4 | 5;
  readonly autoResize: boolean;
}

type Int32Constructor = new (lowest: number, highest: number, digits: number) => JsHistogram;

/** What `dist/JsHistogram.encoding` gives: decoding inflated bytes (it also adds `encodeIntoCompressedBase64` to every JS histogram). */
interface HdrEncoding {
  doDecode(data: Uint8Array, bitBucketSize: 32, minBarForHighestTrackableValue: number): JsHistogram;
}

let int32: Int32Constructor | undefined;
let encoding: HdrEncoding | undefined;

/** A new JS histogram with 32-bit counts: `hdr.build({ bitBucketSize: 32, useWebAssembly: false, ...shape })`. */
export function buildInt32Histogram(shape: JsHistogramShape): JsHistogram {
  int32 ??= (require('hdr-histogram-js/dist/Int32Histogram') as { default: Int32Constructor }).default;
  const h = new int32(shape.lowestDiscernibleValue, shape.highestTrackableValue, shape.numberOfSignificantValueDigits);
  h.autoResize = shape.autoResize;
  return h;
}

// The compressed encoding of JS histograms alone, loaded with the first encode or decode: the
// library's entry would bring its WebAssembly build too, ~15 MB of RSS a run's end never uses.
function hdrEncoding(): HdrEncoding {
  encoding ??= require('hdr-histogram-js/dist/JsHistogram.encoding') as HdrEncoding;
  return encoding;
}

/** `encodeIntoCompressedBase64(h)` of the library: HdrHistogram's V2 compressed form in base64. */
export function encodeCompressedBase64(h: JsHistogram): string {
  hdrEncoding();
  return (h as JsHistogram & { encodeIntoCompressedBase64(): string }).encodeIntoCompressedBase64();
}

/** A 32-bit JS histogram from its inflated V2 encoding (what the library decodes after inflating). */
export function decodeInflated(data: Uint8Array): JsHistogram {
  return hdrEncoding().doDecode(data, 32, 0);
}
