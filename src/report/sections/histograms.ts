/**
 * `histograms`: every serialised HDR histogram, merged bucket by bucket (what makes the merge of
 * latencies exact). They are merged once per scope before any section (`Scope.histograms`), so
 * the sections that re-read a `Pct` from them read the merged ones.
 */
import { z } from 'zod';
import type { Section } from './merge-kit.js';
import { hdr } from './schema-kit.js';

/** report@1 `histograms` (and a scenario's). */
export const histogramsSchema = z.record(z.string(), hdr);

/** `histograms`, kind `histogram`: the scope's merged histograms. */
export const histogramsSection: Section<Readonly<Record<string, string>>> = { merge: (_parts, scope) => scope.histograms };
