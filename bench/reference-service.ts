/**
 * Throughput of the embedded reference service on its hottest route, `GET /v1/flows`.
 *
 *   npx tsx bench/reference-service.ts [--duration 10] [--connections 50] [--in-process]
 *
 * The service runs in a child process pinned to CPU 1 and autocannon drives it from this
 * process pinned to CPU 0 (when `taskset` exists), so generator and server do not share a
 * core. Latency model off, one token with an effectively unlimited rate. Writes the result to
 * `reports/bench/reference-service-<date>.json`. A benchmark, not a test: no assertions.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startReferenceService, type ReferenceService } from '../src/target/index.js';

const BENCH_TOKEN = 'fg_bench_unlimited';
const here = dirname(fileURLToPath(import.meta.url));

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

async function startService(): Promise<ReferenceService> {
  return startReferenceService({
    latency: 'none',
    tokens: { [BENCH_TOKEN]: { account: 'acct_bench', tier: { limitPerMinute: 1_000_000_000 } } },
  });
}

/** Child mode: serve until told to stop, announcing the port on stdout. */
async function serve(): Promise<void> {
  const service = await startService();
  process.stdout.write(`READY ${service.port}\n`);
  const stop = (): void => {
    void service.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return availableParallelism() >= 2;
  } catch {
    return false;
  }
}

function spawnService(pin: boolean): Promise<{ child: ChildProcess; port: number }> {
  const nodeArgs = [...process.execArgv, fileURLToPath(import.meta.url), '--serve'];
  const child = pin
    ? spawn('taskset', ['-c', '1', process.execPath, ...nodeArgs], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, nodeArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('service child did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`service child exited early (${code})`)));
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\d+)/.exec(buf);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
  });
}

function drive(url: string, connections: number, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration, pipelining: 1, headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
}

async function main(): Promise<void> {
  const duration = Number(arg('duration', '10'));
  const connections = Number(arg('connections', '50'));
  const inProcess = process.argv.includes('--in-process');
  const cpus = availableParallelism(); // before pinning, which narrows it to 1
  const pin = !inProcess && hasTaskset();
  if (pin) execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });

  let port: number;
  let stop: () => Promise<void>;
  if (inProcess) {
    const service = await startService();
    port = service.port;
    stop = () => service.close();
  } else {
    const { child, port: p } = await spawnService(pin);
    port = p;
    stop = async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    };
  }
  const url = `http://127.0.0.1:${port}/v1/flows`;
  try {
    await drive(url, connections, 2); // warm-up: JIT and keep-alive sockets
    const r = await drive(url, connections, duration);
    const date = new Date().toISOString().slice(0, 10);
    const report = {
      schema: 'flowgauge/bench-reference-service@1',
      date: new Date().toISOString(),
      route: 'GET /v1/flows',
      setup: { connections, durationS: duration, pinned: pin, serviceInChildProcess: !inProcess, node: process.version, cpus },
      requestsPerS: { mean: r.requests.average, stddev: r.requests.stddev, min: r.requests.min, p50: r.requests.p50 },
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.average },
      totals: { requests: r.requests.total, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts },
    };
    const out = join(here, '..', 'reports', 'bench', `reference-service-${date}.json`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(
      `GET /v1/flows: ${Math.round(r.requests.average)} req/s mean (p50 latency ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors})\n` +
        `written to ${out}\n`,
    );
  } finally {
    await stop();
  }
}

if (process.argv.includes('--serve')) void serve();
else
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
