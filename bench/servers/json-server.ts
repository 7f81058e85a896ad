/**
 * The plain `node:http` saturation server (a child process): every request gets the same
 * ~4 KB flow-list body, as `GET /v1/flows` would. It also records the arrival instant of every
 * request while asked to, so the open-model case measures arrivals where they land:
 *
 *   POST /__bench/record/start   forget earlier arrivals, start recording
 *   POST /__bench/record/stop    stop, answer `{ "stampsMs": [...] }` (monotonic ms, this process)
 *
 * With `--unique`, every answer differs from the last (the first flow's id carries a counter),
 * so nothing a client could remember about an earlier body helps it with the next.
 *
 * Prints `READY {"port":…}` once listening; exits on SIGTERM.
 */
import { serve } from './serve.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { FLOW_LIST_HEADERS, flowListBody } from '../lib/flow-list-body.js';

const body = Buffer.from(flowListBody());
const headers = { ...FLOW_LIST_HEADERS, 'content-length': String(body.length) };
const unique = process.argv.includes('--unique');
// The 8 hex digits of the first flow id: rewritten per answer, same length, still a valid id.
const idDigits = body.indexOf('"id":"flow_') + '"id":"flow_'.length;
let served = 0;

function nextBody(): Buffer {
  if (!unique) return body;
  const b = Buffer.from(body);
  b.write((served++ >>> 0).toString(16).padStart(8, '0'), idDigits, 'latin1');
  return b;
}

let recording = false;
let stamps = new Float64Array(1 << 16);
let count = 0;

function record(): void {
  if (count === stamps.length) {
    const bigger = new Float64Array(stamps.length * 2);
    bigger.set(stamps);
    stamps = bigger;
  }
  stamps[count++] = performance.now();
}

function control(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/__bench/record/start') {
    count = 0;
    recording = true;
    res.writeHead(204).end();
  } else if (req.url === '/__bench/record/stop') {
    recording = false;
    const out = Array.from(stamps.subarray(0, count), (v) => Math.round(v * 1000) / 1000);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ stampsMs: out }));
  } else {
    res.writeHead(404).end();
  }
}

const server = createServer((req, res) => {
  // A string check, then the stamp: the recorded instant is the arrival, and control calls are not arrivals.
  if (req.url !== undefined && req.url.startsWith('/__bench/')) {
    control(req, res);
    return;
  }
  if (recording) record();
  res.writeHead(200, headers);
  res.end(nextBody());
});
serve(server, { bytes: body.length, unique });
