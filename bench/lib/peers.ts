/**
 * The peers flowgauge is measured against, each run as a child pinned to the generator core:
 * wrk and hey (native binaries, CPU time from `/usr/bin/time`), and nginx as a second server
 * on the server core. A peer that is not installed is reported as missing, never faked.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLOW_LIST_HEADERS } from './flow-list-body.js';
import { GENERATOR_CORE, SERVER_CORE, spawnChild, which, type Child } from './proc.js';

/** What a native peer measured, or why it could not. */
export interface PeerRun {
  readonly tool: string;
  readonly requests: number;
  readonly durationS: number;
  readonly requestsPerS: number;
  /** User + system CPU seconds of the whole peer process; undefined without /usr/bin/time. */
  readonly cpuS: number | undefined;
  readonly errors: number;
}

/** Which peers are here: a path, or undefined for missing. */
export interface PeerInventory {
  readonly wrk: string | undefined;
  readonly hey: string | undefined;
  readonly nginx: string | undefined;
  readonly time: string | undefined;
  readonly autocannon: string | undefined;
}

/** Looks the peers up on PATH (and the autocannon package version). */
export function findPeers(): PeerInventory {
  let autocannon: string | undefined;
  try {
    autocannon = (JSON.parse(readFileSync(join('node_modules', 'autocannon', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    autocannon = undefined;
  }
  return { wrk: which('wrk'), hey: which('hey'), nginx: which('nginx'), time: which('time'), autocannon };
}

/** Runs `command args` under `/usr/bin/time` (when present), pinned to the generator core. */
async function timed(peers: PeerInventory, command: string, args: readonly string[]): Promise<{ out: string; cpuS: number | undefined }> {
  let child: Child;
  let timeFile: string | undefined;
  if (peers.time !== undefined) {
    timeFile = join(mkdtempSync(join(tmpdir(), 'fg-bench-')), 'time');
    child = spawnChild(peers.time, ['-f', '%U %S', '-o', timeFile, command, ...args], GENERATOR_CORE);
  } else {
    child = spawnChild(command, args, GENERATOR_CORE);
  }
  await child.exited;
  let cpuS: number | undefined;
  if (timeFile !== undefined) {
    const [u, s] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number);
    cpuS = u !== undefined && s !== undefined && Number.isFinite(u + s) ? u + s : undefined;
    rmSync(join(timeFile, '..'), { recursive: true, force: true });
  }
  return { out: child.output(), cpuS };
}

/** wrk's `N requests in Xs` and error lines. */
export function parseWrk(out: string): { requests: number; durationS: number; errors: number } | undefined {
  const m = /(\d+) requests in ([\d.]+)(ms|s|m)/.exec(out);
  if (m === null) return undefined;
  const unit = m[3] === 'ms' ? 0.001 : m[3] === 'm' ? 60 : 1;
  const errs = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const errors = (errs === null ? 0 : errs.slice(1).reduce((a, b) => a + Number(b), 0)) + (non2xx === null ? 0 : Number(non2xx[1]));
  return { requests: Number(m[1]), durationS: Number(m[2]) * unit, errors };
}

/** wrk with one thread and `connections` connections for `durationS`. */
export async function runWrk(peers: PeerInventory, url: string, connections: number, durationS: number): Promise<PeerRun | undefined> {
  if (peers.wrk === undefined) return undefined;
  const { out, cpuS } = await timed(peers, peers.wrk, ['-t1', `-c${connections}`, `-d${durationS}s`, '-H', 'authorization: Bearer fg_bench_token', url]);
  const r = parseWrk(out);
  if (r === undefined) throw new Error(`wrk printed no summary:\n${out.slice(-1000)}`);
  return { tool: 'wrk', ...r, requestsPerS: r.requests / r.durationS, cpuS };
}

/** hey's summary: total requests from the status distribution, and its run time. */
export function parseHey(out: string): { requests: number; durationS: number; errors: number } | undefined {
  const total = /Total:\s+([\d.]+) secs/.exec(out);
  if (total === null) return undefined;
  let requests = 0;
  let errors = 0;
  for (const m of out.matchAll(/\[(\d{3})\]\s+(\d+) responses/g)) {
    requests += Number(m[2]);
    if (!(m[1] as string).startsWith('2')) errors += Number(m[2]);
  }
  const errSection = /Error distribution:([\s\S]*)$/.exec(out);
  if (errSection !== null) for (const m of (errSection[1] as string).matchAll(/\[(\d+)\]/g)) errors += Number(m[1]);
  return { requests, durationS: Number(total[1]), errors };
}

/** hey rate-limited: `workers` workers at `ratePerS / workers` each (its `-q` is per worker). */
export async function runHey(peers: PeerInventory, url: string, ratePerS: number, workers: number, durationS: number): Promise<PeerRun | undefined> {
  if (peers.hey === undefined) return undefined;
  const perWorker = ratePerS / workers;
  const { out, cpuS } = await timed(peers, peers.hey, ['-z', `${durationS}s`, '-c', String(workers), '-q', String(perWorker), '-H', 'authorization: Bearer fg_bench_token', url]);
  const r = parseHey(out);
  if (r === undefined) throw new Error(`hey printed no summary:\n${out.slice(-1000)}`);
  return { tool: 'hey', ...r, requestsPerS: r.requests / r.durationS, cpuS };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** nginx's own counters (stub_status): the requests it has handled, counted at the server. */
export const NGINX_STATUS_PATH = '/__bench/status';

/** The total of requests nginx has handled so far (its stub_status page), or undefined if unreadable. */
export async function nginxRequests(port: number): Promise<number | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${NGINX_STATUS_PATH}`);
    // "server accepts handled requests\n 5 5 12345": the third number.
    const m = /\n\s*(\d+)\s+(\d+)\s+(\d+)\s*\n/.exec(await res.text());
    return m === null ? undefined : Number(m[3]);
  } catch {
    return undefined;
  }
}

/** A running nginx serving the flow-list body at every path. */
export interface Nginx {
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * The nginx directives of unique answers: every `flow_` of the body becomes `flow_<$request_id>`,
 * so each answer carries 28 strings (14 ids, 14 endpoint URLs) no earlier answer had, still
 * valid against the schema. The body is cut at each `flow_` into variables (one nginx parameter
 * holds at most 4 KB) and `return` joins them with `$request_id`. `sub_filter` doing the same
 * rewrite made nginx the limit (wrk: 25,000 answers/s against 60,000 with `return` and 33,000
 * for the static file), which would hide the client's cost the case is there to show.
 */
function uniqueReturn(body: string): string {
  const parts = body.split('flow_');
  if (parts.some((p) => /['$\\]/.test(p))) throw new Error('the flow-list body cannot be quoted in nginx.conf');
  return `${parts.map((p, i) => `set $p${i} '${p}';`).join(' ')} return 200 '${parts.map((_, i) => `\${p${i}}`).join('flow_${request_id}')}';`;
}

/**
 * Starts nginx (one process, no master, no access log) on the server core, or undefined when
 * missing. With `unique`, every answer differs from every other (see `uniqueReturn`).
 */
export async function startNginx(peers: PeerInventory, body: string, unique = false): Promise<Nginx | undefined> {
  if (peers.nginx === undefined) return undefined;
  const prefix = mkdtempSync(join(tmpdir(), 'fg-nginx-'));
  mkdirSync(join(prefix, 'logs'));
  mkdirSync(join(prefix, 'html'));
  writeFileSync(join(prefix, 'html', 'flows.json'), body);
  const port = await freePort();
  const headers = Object.entries(FLOW_LIST_HEADERS)
    .filter(([k]) => k !== 'content-type')
    .map(([k, v]) => `add_header ${k} ${v};`)
    .join(' ');
  const conf = `worker_processes 1; master_process off; daemon off; pid ${prefix}/nginx.pid; error_log ${prefix}/logs/error.log warn;
events { worker_connections 4096; }
http { access_log off; keepalive_requests 10000000; keepalive_timeout 120s;
  client_body_temp_path ${prefix}/tmp_body; proxy_temp_path ${prefix}/tmp_proxy; fastcgi_temp_path ${prefix}/tmp_fcgi;
  uwsgi_temp_path ${prefix}/tmp_uwsgi; scgi_temp_path ${prefix}/tmp_scgi;
  server { listen 127.0.0.1:${port}; root ${prefix}/html;
    location = ${NGINX_STATUS_PATH} { stub_status; }
    location / { default_type application/json; ${headers} ${unique ? uniqueReturn(body) : 'try_files /flows.json =404;'} } } }\n`;
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  const child = spawnChild(peers.nginx, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], SERVER_CORE);
  // nginx prints nothing when it starts well; poll the port instead.
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/flows`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    port,
    pid: child.pid,
    async stop() {
      await child.stop();
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** The version line of a native tool, for the report (undefined when missing or silent). */
export function versionOf(path: string | undefined, args: readonly string[]): string | undefined {
  if (path === undefined) return undefined;
  // Some tools (nginx) print their version on stderr, some exit non-zero after printing it.
  const r = spawnSync(path, [...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
  const text = `${r.stdout?.toString() ?? ''}${r.stderr?.toString() ?? ''}`;
  return text.split('\n')[0]?.trim() || undefined;
}
