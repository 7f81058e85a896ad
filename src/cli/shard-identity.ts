/**
 * Who a shard is: its index and count (`--shard i/N`, or `--shards N` with an Indexed Job's
 * `JOB_COMPLETION_INDEX`), the run its shards share (`--run-id`, `FLOWGAUGE_RUN_ID`, or the
 * scenario's name and `--start-at`), and a fingerprint of the scenario it resolved to, so that
 * `merge` can tell the shards of one run from reports of another run or another scenario.
 *
 * The fingerprint hashes the resolved plan's data (every setting, flags and `-e` values
 * included; where files came from left out, so two checkouts agree) and, for code (a `.ts`/
 * `.js` scenario, or a journey), the scenario file's source, and each data file's rows. What a
 * scenario file imports from other files is not in it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { RunShard } from '../run/index.js';
import type { ResolvedRunPlan } from '../scenario/index.js';
import { UsageError } from './context.js';

/** Scenario files that are code: their source is part of the fingerprint. */
const CODE = new Set(['.ts', '.mts', '.js', '.mjs']);
/** Hex digits of the SHA-256 kept: 64 bits tell scenarios apart; the report need not carry 256. */
const FINGERPRINT_HEX = 16;
/** A run id is a name, said in reports and messages. */
const RUN_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

/**
 * The plan's data in one canonical form: keys sorted, functions (a journey's code) and where a
 * file came from (`source`, a data file's path: the file's rows are hashed instead) left out.
 */
function canonical(value: unknown, key = ''): unknown {
  if (typeof value === 'function' || value === undefined) return undefined;
  if (value instanceof RegExp) return String(value);
  if (Array.isArray(value)) return value.map((v) => canonical(v) ?? null);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      if (k === 'source' || (k === 'path' && key === 'data')) continue;
      const v = canonical((value as Record<string, unknown>)[k], k);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  return value;
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The fingerprint of `plan`, resolved from `file`: 16 hex digits of a SHA-256 of its canonical
 * data, the file's source when it is code or has a journey, and each data file's contents.
 */
export async function scenarioFingerprint(plan: ResolvedRunPlan, file: string): Promise<string> {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(canonical(plan)));
  if (CODE.has(extname(file).toLowerCase()) || plan.scenarios.some((s) => s.journey !== undefined)) {
    hash.update('\u0000source\u0000');
    hash.update(await readFile(file));
  }
  for (const s of plan.scenarios) {
    if (s.data?.kind !== 'file') continue;
    hash.update(`\u0000data ${s.name} ${basename(s.data.path)}\u0000`);
    hash.update(await hashFile(s.data.path));
  }
  return hash.digest('hex').slice(0, FINGERPRINT_HEX);
}

/** What the run id comes from. */
export interface RunIdInput {
  readonly flag: string | undefined;
  readonly env: string | undefined;
  /** `--start-at`, resolved. */
  readonly startAtMs: number | undefined;
  readonly scenario: string;
}

/**
 * The run the shards share: `--run-id`, else `FLOWGAUGE_RUN_ID` (an empty one is unset), else
 * `<scenario>@<--start-at>` (shards of one scenario given one instant are one run); undefined
 * when none is given. A `UsageError` for an id that is not 1–128 printable ASCII characters
 * without spaces at either end.
 */
export function runIdOf(o: RunIdInput): string | undefined {
  // A flag given twice comes as an array: which one was meant is not ours to guess.
  if (o.flag !== undefined && typeof o.flag !== 'string') throw new UsageError('--run-id is given more than once: give the run one id');
  const given = o.flag ?? (o.env === undefined || o.env.trim() === '' ? undefined : o.env);
  if (given !== undefined) {
    if (!RUN_ID.test(given)) {
      const what = o.flag !== undefined ? '--run-id' : 'FLOWGAUGE_RUN_ID';
      throw new UsageError(`${what} "${given.slice(0, 40)}${given.length > 40 ? '…' : ''}" is not a run id: give 1 to 128 printable ASCII characters (letters, digits, punctuation), e.g. release-2026-05-01`);
    }
    return given;
  }
  if (o.startAtMs === undefined) return undefined;
  return `${o.scenario}@${new Date(o.startAtMs).toISOString().replace('.000Z', 'Z')}`;
}

/** The shard's identity for the engine (`shard`), its index 0-based. */
export async function shardIdentity(shard: { readonly index: number; readonly count: number }, plan: ResolvedRunPlan, file: string, runId: RunIdInput): Promise<RunShard> {
  const id = runIdOf(runId);
  return { index: shard.index, count: shard.count, fingerprint: await scenarioFingerprint(plan, file), ...(id !== undefined ? { runId: id } : {}) };
}
