/**
 * The fixed-schedule streaming server in C (bench/servers/sse-fixed.c, flowgauge's own source),
 * compiled once per `npm run bench` with the machine's `cc` into the bench cache. It answers as
 * sse-server.ts does in paced mode, from one epoll loop, so that at thousands of streams the
 * target is not itself the bottleneck. Without a C compiler the Node server is used and the
 * report says so.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flowListBody } from './flow-list-body.js';
import { ROOT, spawnChild, which, type Child } from './proc.js';

const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'flowgauge-bench', `c-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`);
let built: { bin: string; list: string } | null | undefined;

/** The compiled server and its flow-list file, or undefined when there is no C compiler (or it failed). */
export function fixedSseServer(log: (m: string) => void): { bin: string; list: string } | undefined {
  if (built !== undefined) return built ?? undefined;
  const cc = which('cc') ?? which('gcc') ?? which('clang');
  if (cc === undefined) {
    log('streaming: no C compiler (cc); the paced streams use the Node server');
    built = null;
    return undefined;
  }
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    const bin = join(OUT_DIR, 'sse-fixed');
    execFileSync(cc, ['-O2', '-o', bin, join(ROOT, 'bench', 'servers', 'sse-fixed.c')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const list = join(OUT_DIR, 'flows.json');
    writeFileSync(list, flowListBody());
    built = { bin, list };
  } catch (err) {
    log(`streaming: compiling bench/servers/sse-fixed.c failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); the paced streams use the Node server`);
    built = null;
  }
  return built ?? undefined;
}

/** Spawns the C server with sse-server.ts's paced-mode flags (`--tokens`, `--interval-ms`, `--first-ms`, `--jitter`). */
export function spawnFixedSseServer(server: { bin: string; list: string }, args: readonly string[], core: number): Child {
  return spawnChild(server.bin, [...args, '--list-file', server.list], core);
}
