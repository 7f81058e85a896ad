/**
 * The streaming server (a child process): `POST /v1/flows/{id}/stream` answers with the
 * interface's events, `start`, `tokens` × `token`, `end`, each token carrying `sent_ns`, the
 * server's `process.hrtime` (CLOCK_MONOTONIC, the same clock in every process of the machine)
 * taken just before the write, so a client can compare its own arrival stamp with it.
 *
 *   --tokens 50       tokens per stream
 *   --interval-ms 0   gap between tokens; 0 sends them as fast as the socket takes them,
 *                     `--batch` tokens per write turn (throughput mode)
 *   --first-ms 0      delay before the first token (after `start`)
 *   --batch 4         tokens written per event-loop turn in throughput mode
 *   --jitter 0.5      paced mode: each stream's first delay, gap and token count vary by up
 *                     to ±this share (seeded), so streams do not move in lockstep; with 200
 *                     identical streams every first token would arrive in the same instant
 *
 * `GET /v1/flows` answers with the flow list, so a run's preparation works too.
 * Prints `READY {"port":…}` once listening; exits on SIGTERM.
 */
import { serve } from './serve.js';
import { createServer, type ServerResponse } from 'node:http';
import { flag, numFlag } from '../lib/args.js';
import { FLOW_LIST_HEADERS, flowListBody } from '../lib/flow-list-body.js';

const tokens = numFlag('tokens', 50);
const intervalMs = numFlag('interval-ms', 0);
const firstMs = numFlag('first-ms', 0);
const batch = Math.max(1, numFlag('batch', 4));
const word = flag('word', 'tok');
const jitter = Math.min(0.9, Math.max(0, numFlag('jitter', 0.5)));

// A small seeded generator (mulberry32): the same server arguments give the same streams.
let seed = 0x5eed;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const vary = (v: number): number => v * (1 + jitter * (2 * random() - 1));

const list = Buffer.from(flowListBody());
const listHeaders = { ...FLOW_LIST_HEADERS, 'content-length': String(list.length) };
const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-ratelimit-limit': '1000000000', 'x-ratelimit-remaining': '999999999', 'x-ratelimit-reset': '60' };
let runs = 0;

function tokenEvent(i: number): string {
  return `event: token\ndata: {"type":"token","content":"${word}${i} ","index":${i},"sent_ns":"${process.hrtime.bigint()}"}\n\n`;
}

function endEvent(runId: string, n: number): string {
  return `event: end\ndata: {"type":"end","run_id":"${runId}","usage":{"total_tokens":${n + 12},"prompt_tokens":12,"completion_tokens":${n}}}\n\n`;
}

function stream(res: ServerResponse): void {
  const runId = `run_${++runs}`;
  const paced = intervalMs > 0;
  // Throughput mode streams stay identical; paced ones vary (see --jitter).
  const count = paced ? Math.max(1, Math.round(vary(tokens))) : tokens;
  const gapMs = paced ? vary(intervalMs) : 0;
  const delayMs = paced && firstMs > 0 ? vary(firstMs) : firstMs;
  res.writeHead(200, sseHeaders);
  res.write(`event: start\ndata: {"type":"start","run_id":"${runId}"}\n\n`);
  let i = 0;
  let closed = false;
  res.once('close', () => (closed = true));
  const pacedStep = (): void => {
    if (closed) return;
    res.write(tokenEvent(i++));
    if (i < count) setTimeout(pacedStep, gapMs);
    else res.end(endEvent(runId, count));
  };
  const burst = (): void => {
    if (closed) return;
    for (let k = 0; k < batch && i < count; k++) res.write(tokenEvent(i++));
    if (i < count) setImmediate(burst);
    else res.end(endEvent(runId, count));
  };
  const first = paced ? pacedStep : burst;
  if (count === 0) res.end(endEvent(runId, count));
  else if (delayMs > 0) setTimeout(first, delayMs);
  else setImmediate(first);
}

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url !== undefined && req.url.endsWith('/stream')) {
    // The request body is read and dropped: only its end matters.
    req.resume();
    req.once('end', () => stream(res));
    return;
  }
  res.writeHead(200, listHeaders);
  res.end(list);
});
serve(server);
