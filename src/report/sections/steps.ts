/** `steps` (journeys): each named step's latency re-read from its merged histogram (`step.<name>`). */
import { z } from 'zod';
import type { Pct } from '../../collect/histogram.js';
import { each, histogram, type Rule } from './merge-kit.js';
import { pct } from './schema-kit.js';

/** report@1 `steps`. */
export const stepsSchema = z.record(z.string(), pct);

/** How `steps` merges: each step (kind `each`) by its histogram. */
export const stepsMerge: Rule<Readonly<Record<string, Pct>>> = each((name) => histogram(`step.${name}`, { noun: 'steps' }));
