/**
 * Instructions the client executes per request, counted by valgrind's callgrind: repeatable on
 * a busy machine, where CPU time is not (other jobs' cache and scheduling noise move it by
 * ±20 % within minutes). For comparing variants of the request path while developing; the
 * benchmark's verdicts stay CPU time from `/proc` against the peers.
 *
 *   npx tsx bench/request-instructions.ts [--requests 15000] [--unique] [--tree /path/to/other/checkout]
 *
 * The client of `--tree` (default: this checkout) sends `listFlows` over 50 connections to
 * nginx (identical answers, or with `--unique` a different one every time) until `n` requests
 * are done, under callgrind, for n = N and 2N: (I(2N) − I(N)) ÷ N is the cost of one request
 * with start-up, JIT warm-up and connection set-up taken out. Needs nginx, valgrind and esbuild.
 * Node runs with V8's `--single-threaded` (compilation and garbage collection on the main thread,
 * counted there, not raced by helper threads), and N is 15,000: at 3,000 the difference of two
 * runs moved by several percent with where the JIT's and GC's work happened to fall.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { flag, hasFlag, numFlag } from './lib/args.js';
import { flowListBody } from './lib/flow-list-body.js';
import { findPeers, startNginx } from './lib/peers.js';
import { ROOT } from './lib/proc.js';

const requests = numFlag('requests', 15_000);
const tree = resolve(flag('tree', ROOT));
const unique = hasFlag('unique');

const dir = mkdtempSync(join(tmpdir(), 'fg-instr-'));
const entry = join(dir, 'loop.ts');
writeFileSync(
  entry,
  `import { createClient } from ${JSON.stringify(join(tree, 'src', 'api', 'index.ts'))};
const [base, n] = [process.argv[2] as string, Number(process.argv[3])];
const client = createClient({ baseUrl: base, token: 'fg_bench_token', connections: 50 });
let sent = 0;
let bad = 0;
let why = '';
const worker = async (): Promise<void> => {
  while (sent < n) {
    sent++;
    const r = await client.listFlows();
    if (!r.ok || r.violations.length > 0) {
      bad++;
      why = JSON.stringify(r.ok ? r.violations : r.error.message);
    }
  }
};
await Promise.all(Array.from({ length: 50 }, worker));
await client.close();
// A bad answer is reported, not thrown: the count still means what it says, and a rare reset under valgrind's slowness should not lose the run.
if (bad > 0) process.stderr.write('BAD ' + bad + ' ' + why + '\\n');
`,
);
const esbuild = await import('esbuild');
// Beside the tree's packages, so the bundle's imports resolve as its own code's do (ESM ignores NODE_PATH).
const outDir = join(tree, 'node_modules', '.cache', 'flowgauge-bench', `instructions-${process.pid}`);
const out = join(outDir, 'loop.mjs');
await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: out, packages: 'external', absWorkingDir: tree, logLevel: 'silent' });

const nginx = await startNginx(findPeers(), flowListBody(), unique);
if (nginx === undefined) throw new Error('nginx is not installed');

function instructions(n: number): number {
  const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--single-threaded', out, `http://127.0.0.1:${nginx?.port}/v1`, String(n)], { cwd: tree, encoding: 'utf8' });
  const m = /Collected : (\d+)/.exec(r.stderr);
  const bad = /BAD (\d+) (.*)/.exec(r.stderr);
  if (bad !== null) process.stderr.write(`${n} requests: ${bad[1]} bad answers (the last: ${bad[2]})\n`);
  if (r.status !== 0 || m === null) throw new Error(`valgrind failed (${r.status}):\n${r.stderr.slice(-2000)}`);
  return Number(m[1]);
}

try {
  execFileSync('valgrind', ['--version']);
  const one = instructions(requests);
  const two = instructions(2 * requests);
  const per = (two - one) / requests;
  process.stdout.write(`${tree}${unique ? ', unique bodies' : ''}: ${Math.round(per).toLocaleString('en-US')} instructions per request (I(${requests}) ${one.toLocaleString('en-US')}, I(${2 * requests}) ${two.toLocaleString('en-US')})\n`);
} finally {
  await nginx.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
}
