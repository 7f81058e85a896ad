/**
 * What one 2xx body costs the client to read, in-process and without a network (so the figures
 * hold still on a shared machine): decoding the bytes, `JSON.parse`, the compiled contract check
 * (`src/api/fast-validate.ts`), the layout check that accepts a body unparsed
 * (`src/api/layout-check.ts`, what the client runs first), the depth scan the parsed path runs
 * before `JSON.parse`, and, for comparison, zod's own parse. Bodies are the saturation
 * servers' 4.2 KB flow page, made unique two ways: the first flow's id rewritten per body (what
 * `bench/servers/json-server.ts --unique` serves), and every id, timestamp and URL different
 * (what a live service's pages look like).
 *
 *   npx tsx bench/parse-check.ts [--iterations 200000]
 *
 * Prints CPU µs per body, the best of 7 repetitions.
 */
import { flowListBody } from './lib/flow-list-body.js';
import { numFlag } from './lib/args.js';
import { fastCheckOf } from '../src/api/fast-validate.js';
import { LayoutCheck } from '../src/api/layout-check.js';
import { jsonDeeperThan } from '../src/core/input-limits.js';
import { flowListSchema } from '../src/api/schemas.js';
import { decodeBody } from '../src/transport/transport.js';

const iterations = numFlag('iterations', 200_000);
const REPS = 7;

/** Bodies that differ only in the first flow's id, rewritten in place per use. */
function idOnly(): () => Buffer {
  const buf = Buffer.from(flowListBody());
  const at = buf.indexOf('"id":"flow_') + '"id":"flow_'.length;
  let n = 0;
  return () => {
    buf.write((n++ >>> 0).toString(16).padStart(8, '0'), at, 'latin1');
    return buf;
  };
}

/** Bodies in which every id, timestamp and URL is new: a pool larger than any cache, cycled. */
function everyField(): () => Buffer {
  const pool: Buffer[] = [];
  for (let k = 0; k < 4096; k++) {
    const page = JSON.parse(flowListBody()) as { flows: Record<string, string>[] };
    page.flows.forEach((f, i) => {
      const id = `flow_${(k * 64 + i).toString(16).padStart(8, '0')}`;
      const s = String((k * 14 + i) % 60).padStart(2, '0');
      f.id = id;
      f.created_at = `2026-03-${String(1 + (k % 28)).padStart(2, '0')}T10:${s}:${s}Z`;
      f.updated_at = `2026-04-${String(1 + (i % 28)).padStart(2, '0')}T11:${s}:${String((k + i) % 60).padStart(2, '0')}.${k}Z`;
      f.endpoint = `https://api.example.com/v1/flows/${id}/run`;
    });
    pool.push(Buffer.from(JSON.stringify(page)));
  }
  let n = 0;
  return () => pool[n++ % pool.length] as Buffer;
}

function measure(label: string, fn: () => unknown): number {
  for (let i = 0; i < iterations / 10; i++) fn();
  let best = Infinity;
  for (let r = 0; r < REPS; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < iterations / REPS; i++) fn();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / (iterations / REPS));
  }
  console.log(`${label.padEnd(44)} ${best.toFixed(2).padStart(6)} µs`);
  return best;
}

const check = fastCheckOf(flowListSchema);
if (check === undefined) throw new Error('the flow list schema did not compile');
for (const [name, next] of [
  ['first id unique', idOnly()],
  ['every id, timestamp and URL unique', everyField()],
] as const) {
  console.log(`${name} (${next().length} bytes):`);
  const text = () => {
    const b = next();
    return decodeBody(b, 0, b.length);
  };
  const decode = measure('  decode (UTF-8)', text);
  const parse = measure('  decode + JSON.parse', () => JSON.parse(text()));
  const checked = measure('  decode + JSON.parse + compiled check', () => check(JSON.parse(text())));
  const deep = measure('  decode + depth scan + JSON.parse + check', () => {
    const t = text();
    return !jsonDeeperThan(t) && check(JSON.parse(t));
  });
  const layout = new LayoutCheck(flowListSchema);
  layout.learn(JSON.parse(flowListBody()));
  if (!layout.accepts(text())) throw new Error('the layout learned from the flow page does not accept these pages');
  const learned = measure('  decode + layout check (no parse)', () => layout.accepts(text()));
  const zod = measure('  decode + JSON.parse + zod safeParse', () => flowListSchema.safeParse(JSON.parse(text())).success);
  console.log(
    `  → JSON.parse ${(parse - decode).toFixed(2)} µs, compiled check ${(checked - parse).toFixed(2)} µs, depth scan ${(deep - checked).toFixed(2)} µs, ` +
      `layout check ${(learned - decode).toFixed(2)} µs (÷ parse + check ${((learned - decode) / (checked - decode)).toFixed(2)}), zod ${(zod - parse).toFixed(2)} µs`,
  );
}
