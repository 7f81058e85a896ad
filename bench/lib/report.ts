/**
 * The benchmark report: targets judged from the case results, and the Markdown page of
 * ratios (absolute numbers on a shared 2-core machine are noise; ratios between tools run in
 * turn against the same server are not). Pure: bench/run.ts writes the files.
 */
import type { CliResult } from '../cases/cli.js';
import type { JourneyCostResult } from '../cases/journey.js';
import type { ManyStreamsResult } from '../cases/many-streams.js';
import type { MemoryResult } from '../cases/memory.js';
import type { OpenModelResult } from '../cases/open-model.js';
import type { SaturationResult } from '../cases/saturation.js';
import type { StartupResult } from '../cases/startup.js';
import type { StreamingResult, StreamRun } from '../cases/streaming.js';
import type { WorkersResult } from '../cases/workers.js';
import { median, type Spread } from './stats.js';

/** Everything one `npm run bench` measured. */
export interface BenchReport {
  readonly schema: 'flowgauge/bench@1';
  readonly date: string;
  readonly quick: boolean;
  readonly machine: {
    readonly cpus: number;
    readonly node: string;
    readonly pinned: boolean;
    readonly loadAverageStart: readonly number[];
    readonly loadAverageEnd: readonly number[];
  };
  readonly peers: Readonly<Record<string, string | null>>;
  readonly saturation: readonly SaturationResult[] | undefined;
  readonly openModel: OpenModelResult | undefined;
  readonly streaming: StreamingResult | undefined;
  readonly manyStreams?: ManyStreamsResult | undefined;
  readonly memory: MemoryResult | undefined;
  readonly journey?: JourneyCostResult | undefined;
  readonly workers?: WorkersResult | undefined;
  readonly cli?: CliResult | undefined;
  readonly startup?: StartupResult | undefined;
  readonly targets: readonly TargetCheck[];
  readonly elapsedS: number;
}

/** One stated target and what was observed. `passed` is undefined when it could not be measured. */
export interface TargetCheck {
  readonly id: string;
  readonly description: string;
  readonly target: string;
  readonly observed: number | undefined;
  readonly passed: boolean | undefined;
}

function check(id: string, description: string, target: string, observed: number | undefined, ok: (v: number) => boolean): TargetCheck {
  return { id, description, target, observed, passed: observed === undefined ? undefined : ok(observed) };
}

/** Judges every target of the issue that the results allow. */
export function checkTargets(r: Pick<BenchReport, 'saturation' | 'openModel' | 'streaming' | 'manyStreams' | 'memory' | 'journey' | 'workers' | 'cli' | 'startup'>): TargetCheck[] {
  const out: TargetCheck[] = [];
  // The headline first: the installed CLI against a different body every answer.
  if (r.cli?.available === true) {
    const c = r.cli;
    if (c.unique !== undefined) {
      out.push(check('8.cli.unique.cpu', 'installed CLI (every body checked) ÷ autocannon: CPU per request, a different body every answer (nginx), median of per-round ratios', '≤ 1.11', c.unique.cpuCliToAutocannon?.median, (v) => v <= 1.11));
      out.push(check('8.cli.unique', 'installed CLI (every body checked) ÷ autocannon req/s, a different body every answer (nginx)', '≥ 0.90', c.unique.rpsCliToAutocannon, (v) => v >= 0.9));
    }
    out.push(check('8.cli.wrk', 'installed CLI ÷ wrk: CPU per request, identical bodies, median of per-round ratios', '≤ 1.50', c.cpuCliToWrkPerRound?.median ?? c.cpuCliToWrk, (v) => v <= 1.5));
    out.push(check('8.cli.cpu', 'installed CLI (default observers) ÷ library driver: CPU per request, closed loop, nginx', '≤ 1.10', c.cpuCliToLibrary, (v) => v <= 1.1));
    out.push(check('8.cli.rss', 'installed CLI ÷ library driver: peak RSS', '≤ 1.20', c.rssCliToLibrary, (v) => v <= 1.2));
    out.push(check('8.cli.autocannon', 'installed CLI ÷ autocannon req/s, identical bodies', '≥ 1.20', c.rpsCliToAutocannon, (v) => v >= 1.2));
  }
  for (const s of r.saturation ?? []) {
    if (!s.available) continue;
    // Issue 17 asks more where the server leaves room: ≥ 1.1 against nginx with unique bodies.
    const min = s.server === 'nginx, unique bodies' ? 1.1 : 1;
    out.push(check(`1.saturation.${s.server}`, `closed loop, 50 connections, ${s.server}: flowgauge ÷ autocannon req/s`, `≥ ${min.toFixed(2)}`, s.ratioToAutocannon, (v) => v >= min));
  }
  const openTool = (tool: string, contended: boolean): OpenModelResult['tools'][number] | undefined =>
    r.openModel?.tools.find((t) => t.tool === tool && (t.contended === true) === contended && t.available);
  const fg = openTool('flowgauge', false);
  if (r.openModel !== undefined) {
    const rate = r.openModel.targetRatePerS;
    out.push(check('2.open.cpu', `open model ${rate}/s: flowgauge ÷ hey, CPU per arrival`, '≤ 1.50', ratioOf(fg?.cpuUsPerArrival, openTool('hey', false)?.cpuUsPerArrival), (v) => v <= 1.5));
    const busy = openTool('flowgauge', true);
    out.push(check('2.open.contended.cv', `open model ${rate}/s beside a busy process on its core: flowgauge's CV per ${r.openModel.bucketMs} ms (hey's: ${fmt(openTool('hey', true)?.atServer?.cv, 3)})`, '≤ 0.05', busy?.atServer?.cv, (v) => v <= 0.05));
    const lag = (fg?.generator?.scheduleLagMs as { p99?: number } | undefined)?.p99;
    out.push(check('2.open.achieved', `open model ${r.openModel.targetRatePerS}/s: achieved ÷ target (at the server)`, 'within 1 %', fg?.achievedRatio, (v) => Math.abs(v - 1) <= 0.01));
    out.push(check('2.open.lag', 'open model: scheduling lag p99 (ms)', '≤ 2 ms', lag, (v) => v <= 2));
    out.push(check('2.open.cv', `open model: CV of arrivals per ${r.openModel.bucketMs} ms (at the server)`, '≤ 0.05', fg?.atServer?.cv, (v) => v <= 0.05));
  }
  if (r.streaming !== undefined) {
    out.push(check('3.stream.throughput', 'streaming tokens/s: flowgauge (full timing) ÷ bare undici + eventsource-parser', '≥ 0.90', r.streaming.ratioToBare, (v) => v >= 0.9));
    out.push(check('3.stream.ttft', `TTFT error p99 at ${r.streaming.concurrency} streams (ms)`, '≤ 1 ms', r.streaming.ttftErrorP99Ms, (v) => v <= 1));
    out.push(check('3.stream.ttft.p50', `TTFT error p50 at ${r.streaming.concurrency} paced streams (ms)`, '≤ 10 ms', r.streaming.paced?.ttftErrorMs?.p50, (v) => v <= 10));
    out.push(check('3.stream.ttft.floor', `TTFT error p99 at ${r.streaming.concurrency} paced streams ÷ the raw-socket floor's (valid floor rounds only)`, '≤ 2', ratioOf(r.streaming.ttftErrorP99Ms, r.streaming.floorTtftErrorP99Ms), (v) => v <= 2));
    out.push(check('3.stream.ttft.raw', `TTFT p99 at ${r.streaming.concurrency} paced streams ÷ the raw-socket floor's, both timed from the stream's start (connect included), ${r.streaming.pacedServer ?? 'Node'} server`, '≤ 1.50', ratioOf(r.streaming.ttftP99Ms, r.streaming.floorTtftP99Ms), (v) => v <= 1.5));
    const floorRounds = r.streaming.floorRuns.length;
    out.push(check('3.stream.floor.valid', 'raw-socket floor rounds valid (streams per connection, duration)', `${floorRounds} of ${floorRounds}`, r.streaming.floorRuns.filter((x) => x.invalid === undefined).length, (v) => v === floorRounds));
    const pacedRss = Math.max(...r.streaming.pacedRuns.map((x) => x.maxRssMb ?? 0));
    out.push(check('3.stream.rss', `peak RSS holding ${r.streaming.concurrency} paced streams (MB)`, '≤ 400 MB', pacedRss > 0 ? pacedRss : undefined, (v) => v <= 400));
  }
  if (r.manyStreams !== undefined) {
    const m = r.manyStreams;
    const n = m.concurrency.toLocaleString('en-US');
    out.push(check('3b.many.stall', `${n} streams: longest event-loop stall while opening, worst of ${m.rounds} round(s) (ms)`, '≤ 50 ms', m.openingStallMaxMs, (v) => v <= 50));
    out.push(check('3b.many.ttft.floor', `${n} streams: TTFT error p99 ÷ the raw-socket floor's (valid floor rounds, streams started once all are open)`, '≤ 1.50', ratioOf(m.ttftErrorP99Ms, m.floorTtftErrorP99Ms), (v) => v <= 1.5));
    out.push(check('3b.many.ttft.raw', `${n} streams: TTFT p99 ÷ the raw-socket floor's, both timed from the stream's start (connect included), ${m.server ?? 'Node'} server`, '≤ 1.50', ratioOf(m.ttftP99Ms, m.floorTtftP99Ms), (v) => v <= 1.5));
    out.push(check('3b.many.rss', `${n} streams: peak RSS of the generator (MB)`, '≤ 600 MB', m.maxRssMb, (v) => v <= 600));
    const floorRounds = m.floorRuns.length;
    out.push(check('3b.many.floor.valid', `${n} streams: raw-socket floor rounds valid`, `${floorRounds} of ${floorRounds}`, m.floorRuns.filter((x) => x.invalid === undefined).length, (v) => v === floorRounds));
  }
  if (r.memory !== undefined) {
    const n = r.memory.requests.toLocaleString('en-US');
    out.push(check('4.memory.peak', `peak RSS over ${n} requests (MB)`, '≤ 150 MB', r.memory.maxRssMb, (v) => v <= 150));
    out.push(check('4.memory.growth', `RSS growth, first tenth to ${n} requests (MB)`, '≤ 10 MB', r.memory.growthMb, (v) => v <= 10));
  }
  if (r.journey !== undefined) {
    out.push(check('5.journey.cpu', 'journey of 5 calls: CPU per request ÷ the same requests as a mix', '≤ 1.20', r.journey.journeyRatio, (v) => v <= 1.2));
    out.push(check('5.steps.cpu', '5 compiled steps: CPU per request ÷ the same requests as a mix', '≤ 1.20', r.journey.stepsRatio, (v) => v <= 1.2));
  }
  if (r.workers?.open !== undefined) {
    const o = r.workers.open;
    out.push(check('6.workers.cv', `open model ${o.targetRatePerS}/s over 2 workers: CV of arrivals per ${o.bucketMs} ms (at the server)`, '≤ 0.05', o.cv, (v) => v <= 0.05));
    out.push(check('6.workers.achieved', `open model ${o.targetRatePerS}/s over 2 workers: achieved ÷ target (at the server)`, 'within 1 %', o.ratePerS / o.targetRatePerS, (v) => Math.abs(v - 1) <= 0.01));
  }
  // Start-up in ratios to `node -e 0` on the same Node (issue 44): what flowgauge adds to Node's own.
  for (const n of r.startup?.nodes ?? []) {
    out.push(check(`7.startup.help.${n.node}`, `installed \`flowgauge --help\` ÷ \`node -e 0\`, Node ${n.node}`, '≤ 1.5', n.help.ratioToNode, (v) => v <= 1.5));
    out.push(check(`7.startup.json.${n.node}`, `installed \`flowgauge run tiny.json\` to its first request ÷ \`node -e 0\`, Node ${n.node}`, '≤ 3', n.runJsonToFirstRequest.ratioToNode, (v) => v <= 3));
    out.push(check(`7.startup.ts.${n.node}`, `installed \`flowgauge run tiny.ts\` to its first request ÷ \`node -e 0\`, Node ${n.node}, ${n.tsLoader}`, '≤ 4', n.runToFirstRequest.ratioToNode, (v) => v <= 4));
  }
  return out;
}

function manyStreamsRows(m: ManyStreamsResult): string[] {
  const each = <T>(xs: readonly T[], f: (x: T) => string): string => xs.map(f).join(', ');
  const opening = (r: StreamRun): string => `${fmt(r.coldOpeningS, 1)} s, ${fmt(r.coldOpeningLoopDelayMs?.p99, 1)} / ${fmt(r.coldOpeningLoopDelayMs?.max, 1)}`;
  const ttft = (r: StreamRun): string => `${fmt(r.ttftErrorMs?.p50, 2)} / ${fmt(r.ttftErrorMs?.p99, 2)}`;
  const ramp = (r: StreamRun): string => fmt(r.ttftErrorOpeningMs?.p99, 2);
  const ended = (r: StreamRun): string => `${r.streams} / ${r.errors}`;
  const loop = (r: StreamRun): string => `${fmt(r.eventLoopDelayMs?.p99, 1)} / ${fmt(r.eventLoopDelayMs?.max, 1)}`;
  const rss = (r: StreamRun): string => fmt(r.maxRssMb, 0);
  return [
    `## 3b. ${m.concurrency.toLocaleString('en-US')} long-lived streams (${m.pacing.tokens} tokens, one every ${m.pacing.intervalMs} ms)`,
    '',
    `${m.rounds} round(s), flowgauge and the raw-socket floor alternating; per round:`,
    '',
    '| measure | flowgauge | flowgauge, `--single-threaded-gc` | raw-socket floor |',
    '|---|---|---|---|',
    `| opening the connections (warm-up pass): s, loop delay p99 / max (ms) | ${each(m.runs, opening)} | ${each(m.singleThreadedGcRuns, opening)} | — |`,
    `| TTFT error p50 / p99 (ms), streams started once all are open | ${each(m.runs, ttft)} | ${each(m.singleThreadedGcRuns, ttft)} | ${each(m.floorRuns, (r) => `${ttft(r)}${r.invalid === undefined ? '' : ' (invalid)'}`)} |`,
    `| TTFT error p99 (ms), streams started on the ramp (${fmt(m.runs[0]?.rampS, 1)} s) | ${each(m.runs, ramp)} | ${each(m.singleThreadedGcRuns, ramp)} | — |`,
    `| streams measured to \`end\` / errors | ${each(m.runs, ended)} | ${each(m.singleThreadedGcRuns, ended)} | ${each(m.floorRuns, (r) => String(r.streams))} |`,
    `| event-loop delay p99 / max (ms), measured pass | ${each(m.runs, loop)} | ${each(m.singleThreadedGcRuns, loop)} | — |`,
    `| TTFT p50 / p99 (ms), from the stream's start, connect included | ${each(m.runs, (r) => `${fmt(r.ttftSteadyMs?.p50, 2)} / ${fmt(r.ttftSteadyMs?.p99, 2)}`)} | ${each(m.singleThreadedGcRuns, (r) => `${fmt(r.ttftSteadyMs?.p50, 2)} / ${fmt(r.ttftSteadyMs?.p99, 2)}`)} | ${each(m.floorRuns, (r) => `${fmt(r.ttftSteadyMs?.p50, 2)} / ${fmt(r.ttftSteadyMs?.p99, 2)}`)} |`,
    `| peak RSS (MB) | ${each(m.runs, rss)} | ${each(m.singleThreadedGcRuns, rss)} | ${each(m.floorRuns, rss)} |`,
    '',
    `Medians: TTFT error p99 ${fmt(m.ttftErrorP99Ms, 2)} ms against the floor's ${fmt(m.floorTtftErrorP99Ms, 2)} ms (${fmt(ratioOf(m.ttftErrorP99Ms, m.floorTtftErrorP99Ms))}×); ` +
      `with \`--single-threaded-gc\` ${fmt(m.singleThreadedGcTtftErrorP99Ms, 2)} ms (${fmt(ratioOf(m.singleThreadedGcTtftErrorP99Ms, m.floorTtftErrorP99Ms))}×); on the ramp ${fmt(m.rampTtftErrorP99Ms, 2)} ms. ` +
      `TTFT p99 ${fmt(m.ttftP99Ms, 2)} ms against the floor's ${fmt(m.floorTtftP99Ms, 2)} ms (${fmt(ratioOf(m.ttftP99Ms, m.floorTtftP99Ms))}×). Server: ${m.server ?? 'Node'}.`,
  ];
}

const spread = (x: Spread | undefined, digits = 2): string => (x === undefined ? '—' : `${x.median.toFixed(digits)} (${x.min.toFixed(digits)}–${x.max.toFixed(digits)}, ${x.n} round${x.n === 1 ? '' : 's'})`);

function cliRows(c: CliResult): string[] {
  if (!c.available) return [`Not measured: ${c.why ?? 'unavailable'}.`];
  const rows: string[] = [];
  const table = (tools: CliResult['tools'], label: string): void => {
    rows.push(`| tool, ${label} | requests/s | CPU µs per request: median (range) | peak RSS MB | requests/s per round (minor page faults per 1,000 requests) |`, '|---|---|---|---|---|');
    for (const [tool, f] of Object.entries(tools)) {
      if (f === undefined || f.runs.length === 0) {
        rows.push(`| ${tool} | missing (not installed) | | | |`);
        continue;
      }
      rows.push(`| ${tool} | ${fmt(f.requestsPerS, 0)} | ${f.cpu === undefined ? fmt(f.cpuUsPerRequest, 1) : spread(f.cpu, 1)} | ${fmt(f.maxRssMb, 0)} | ${f.runs.map((x) => `${fmt(x.requestsPerS, 0)}${x.faultsPerKRequests === undefined ? '' : ` (${fmt(x.faultsPerKRequests, 0)} faults/1k)`}`).join(', ')} |`);
    }
    rows.push('');
  };
  if (c.unique !== undefined) {
    table(c.unique.tools, 'a different body every answer');
    rows.push(
      `Unique bodies, per-round ratios of CPU per request: CLI ÷ autocannon ${spread(c.unique.cpuCliToAutocannon)}, CLI with \`validate: off\` ÷ autocannon ${spread(c.unique.cpuCliOffToAutocannon)}, CLI ÷ wrk ${spread(c.unique.cpuCliToWrk)}. CLI ÷ autocannon req/s ${fmt(c.unique.rpsCliToAutocannon)}.`,
      '',
    );
  }
  table(c.tools, 'identical bodies');
  rows.push(
    `Identical bodies: CLI ÷ library: CPU per request ${fmt(c.cpuCliToLibrary)}, peak RSS ${fmt(c.rssCliToLibrary)}. ÷ autocannon req/s: CLI ${fmt(c.rpsCliToAutocannon)}, library ${fmt(c.rpsLibraryToAutocannon)}. ÷ wrk CPU per request: CLI ${spread(c.cpuCliToWrkPerRound)} per round (of medians ${fmt(c.cpuCliToWrk)}), library ${fmt(c.cpuLibraryToWrk)}.`,
  );
  return rows;
}

function startupRows(st: StartupResult): string[] {
  const rows = ['| Node | command | wall ms (median) | ÷ `node -e 0` | CPU ms | peak RSS MB | wall ms per round |', '|---|---|---|---|---|---|---|'];
  for (const n of st.nodes) {
    const line = (name: string, f: StartupResult['nodes'][number]['version']): string =>
      `| ${n.node} | ${name} | ${fmt(f.wallMs, 0)} | ${fmt(f.ratioToNode, 1)} | ${fmt(f.cpuMs, 0)} | ${fmt(f.maxRssMb, 0)} | ${f.samplesMs.join(', ')} |`;
    rows.push(line('`node -e 0`', n.nodeE0), line('`flowgauge --version`', n.version), line('`flowgauge --help`', n.help), line(`\`flowgauge run tiny.ts\` to first request (${n.tsLoader})`, n.runToFirstRequest),
      line('`flowgauge run tiny.json` to first request', n.runJsonToFirstRequest),
    );
  }
  return rows;
}

const ratioOf = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const fmt = (v: number | undefined, digits = 2): string => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits));
const verdict = (p: boolean | undefined): string => (p === undefined ? 'not measured' : p ? 'met' : '**missed**');

function saturationRows(list: readonly SaturationResult[]): string[] {
  const rows = ['| server | flowgauge ÷ autocannon | flowgauge (validate off) ÷ autocannon | wrk ÷ autocannon | CPU/10k req: flowgauge ÷ autocannon | CPU/10k req: wrk ÷ autocannon |', '|---|---|---|---|---|---|'];
  for (const s of list) {
    if (!s.available) {
      rows.push(`| ${s.server} | missing (not installed) | | | | |`);
      continue;
    }
    const cpu = (k: string): number | undefined => s.tools[k]?.cpuSPer10k;
    const ac = cpu('autocannon');
    const div = (a: number | undefined): number | undefined => (a === undefined || ac === undefined || ac === 0 ? undefined : a / ac);
    rows.push(
      `| ${s.server} | ${fmt(s.ratioToAutocannon)} | ${fmt(s.ratioNoValidateToAutocannon)} | ${fmt(s.ratioWrkToAutocannon)} | ${fmt(div(cpu('flowgauge')))} | ${fmt(div(cpu('wrk')))} |`,
    );
  }
  return rows;
}

function openRows(o: OpenModelResult): string[] {
  const rows = [`| tool | achieved ÷ target | CV per ${o.bucketMs} ms | peak bucket ÷ mean | scheduling lag p99 | CPU µs per arrival |`, '|---|---|---|---|---|---|'];
  for (const t of o.tools) {
    const name = `${t.tool}${t.contended === true ? ', beside a busy process' : ''}`;
    if (!t.available) {
      rows.push(`| ${name} | missing (not installed) | | | | |`);
      continue;
    }
    const lag = (t.generator?.scheduleLagMs as { p99?: number } | undefined)?.p99;
    rows.push(`| ${name} | ${fmt(t.achievedRatio, 4)} | ${fmt(t.atServer?.cv, 3)} | ${fmt(t.atServer?.peakToMean)} | ${lag === undefined ? 'n/a' : `${fmt(lag)} ms`} | ${fmt(t.cpuUsPerArrival, 1)} |`);
  }
  return rows;
}

/** The Markdown page: targets first, then the ratio tables of each case. */
export function renderBenchMarkdown(r: BenchReport): string {
  const lines: string[] = [];
  lines.push(`# flowgauge benchmark — ${r.date}${r.quick ? ' (quick)' : ''}`, '');
  lines.push(
    `Node ${r.machine.node}, ${r.machine.cpus} CPUs, ${r.machine.pinned ? 'server pinned to CPU 0 and generators to CPU 1 (taskset)' : 'not pinned (no taskset)'}; ` +
      `load average ${r.machine.loadAverageStart.map((x) => x.toFixed(2)).join(' ')} at the start. Ratios only: the machine is shared. ${fmt(r.elapsedS, 0)} s in all.`,
    '',
  );
  lines.push('## Targets', '', '| target | wanted | observed | verdict |', '|---|---|---|---|');
  for (const t of r.targets) lines.push(`| ${t.description} | ${t.target} | ${fmt(t.observed, 3)} | ${verdict(t.passed)} |`);
  lines.push('');
  if (r.cli !== undefined) {
    lines.push('## 8. The installed CLI beside autocannon, wrk and the library (the headline)', '');
    if (r.cli.available) lines.push(`Closed loop, 50 connections, against nginx: first a different body every answer (the headline), then the identical body. Requests counted at nginx and CPU read from \`/proc\` over a ${r.cli.windowS} s window after the warm-up, the same for every tool; ${r.cli.rounds} round(s), tools taking turns in an order rotated each round.`, '');
    lines.push(...cliRows(r.cli), '');
  }
  if (r.saturation !== undefined) lines.push('## 1 and 5. Closed-loop saturation and generator CPU', '', ...saturationRows(r.saturation), '');
  if (r.openModel !== undefined) lines.push(`## 2. Open model at ${r.openModel.targetRatePerS}/s (measured at the server)`, '', ...openRows(r.openModel), '');
  if (r.streaming !== undefined) {
    const s = r.streaming;
    lines.push('## 3. Streaming', '', '| measure | value |', '|---|---|');
    lines.push(`| tokens/s, flowgauge ÷ bare loop (${s.concurrency} streams) | ${fmt(s.ratioToBare)} |`);
    const rss = (runs: readonly { maxRssMb?: number }[]): string => fmt(Math.max(...runs.map((x) => x.maxRssMb ?? 0)), 0);
    lines.push(`| tokens/s: flowgauge / bare loop (medians) | ${fmt(s.flowgaugeTokensPerS, 0)} / ${fmt(s.bareTokensPerS, 0)} |`);
    lines.push(`| peak RSS (MB): flowgauge / bare loop | ${rss(s.throughput.flowgauge)} / ${rss(s.throughput.bare)} |`);
    const perStream = s.pacedRuns.map((x) => x.bytesPerStream).filter((x): x is number => x !== undefined);
    lines.push(`| paced streams measured to \`end\` / errors, per round | ${s.pacedRuns.map((x) => `${x.streams} / ${x.errors}`).join(', ')} |`);
    lines.push(`| peak RSS (MB) / memory per open stream (bytes), paced runs | ${rss(s.pacedRuns)} / ${perStream.length > 0 ? fmt(median(perStream), 0) : '—'} |`);
    lines.push(`| TTFT error p50 / p99 / max (ms), ${s.concurrency} paced streams | ${fmt(s.paced?.ttftErrorMs?.p50, 3)} / ${fmt(s.paced?.ttftErrorMs?.p99, 3)} / ${fmt(s.paced?.ttftErrorMs?.max, 3)} |`);
    const floorP99 = s.floorRuns.map((r) => `${fmt(r.ttftErrorMs?.p99, 3)}${r.invalid === undefined ? '' : ' (invalid)'}`).join(', ');
    const fgP99 = s.pacedRuns.map((r) => fmt(r.ttftErrorMs?.p99, 3)).join(', ');
    lines.push(`| TTFT error p99 per round (ms): flowgauge / raw-socket floor | ${fgP99} / ${floorP99} |`);
    lines.push(`| TTFT error p99, flowgauge ÷ raw-socket floor (medians) | ${fmt(ratioOf(s.ttftErrorP99Ms, s.floorTtftErrorP99Ms))} |`);
    lines.push(`| TTFT p99 (ms, from the stream's start, connect included): flowgauge / floor, ÷ | ${fmt(s.ttftP99Ms, 2)} / ${fmt(s.floorTtftP99Ms, 2)}, ${fmt(ratioOf(s.ttftP99Ms, s.floorTtftP99Ms))} |`);
    lines.push(`| server of the paced streams | ${s.pacedServer ?? 'Node'} |`);
    const loop = s.paced?.eventLoopDelayMs;
    lines.push(`| client event-loop delay p50 / p99 / max (ms, 1 ms timer), paced run | ${fmt(loop?.p50, 2)} / ${fmt(loop?.p99, 2)} / ${fmt(loop?.max, 2)} |`, '');
    for (const [i, f] of s.floorRuns.entries()) {
      if (f.invalid !== undefined) lines.push(`Floor round ${i + 1} is invalid and left out of the median: ${f.invalid}.`, '');
    }
  }
  if (r.manyStreams !== undefined) lines.push(...manyStreamsRows(r.manyStreams), '');
  if (r.memory !== undefined) {
    const m = r.memory;
    lines.push('## 4. Memory', '', '| measure | MB |', '|---|---|');
    lines.push(`| RSS at start / first tenth / end | ${fmt(m.rssStartMb, 1)} / ${fmt(m.rssAtTenthMb, 1)} / ${fmt(m.rssEndMb, 1)} |`);
    lines.push(`| peak RSS (kernel high-water mark) | ${fmt(m.maxRssMb, 1)} |`, `| growth, first tenth to end | ${fmt(m.growthMb, 1)} |`);
    lines.push(`| heap used at the end | ${fmt(m.heapUsedMb, 1)} |`, '');
    if (m.nodeFlags.length > 0) lines.push(`Memory driver run with \`node ${m.nodeFlags.join(' ')}\`.`, '');
  }
  if (r.journey !== undefined) {
    const j = r.journey;
    lines.push('## 5. Journey cost', '', `The same listFlows requests at ${j.requestRatePerS}/s for ${j.durationS} s, ${j.rounds} round(s), modes alternating.`, '');
    lines.push('| mode | requests | CPU s per 10k requests | ÷ mix |', '|---|---|---|---|');
    const mix = j.modes.find((m) => m.mode === 'mix')?.cpuPer10kS;
    for (const m of j.modes) lines.push(`| ${m.mode} | ${m.requests} | ${fmt(m.cpuPer10kS, 3)} | ${fmt(ratioOf(m.cpuPer10kS, mix), 2)} |`);
    lines.push('');
  }
  if (r.workers !== undefined) {
    const w = r.workers;
    lines.push('## 6. Every core (--workers)', '', `Closed loop, 50 connections, against ${w.server}, ${w.cores} cores shared by the server and the generator; runs alternate.`, '');
    lines.push('| workers | requests/s | CPU µs per request | errors |', '|---|---|---|---|');
    for (const x of w.runs) lines.push(`| ${x.workers} | ${fmt(x.requestsPerS, 0)} | ${fmt(x.cpuUsPerRequest, 1)} | ${x.errors} |`);
    lines.push('', `Scaling, 2 workers ÷ 1 (medians): requests/s ${fmt(w.scaling)}, CPU per request ${fmt(w.cpuRatio)}.`);
    for (const [n, o] of [[1, w.openOneWorker], [2, w.open]] as const) {
      if (o !== undefined) lines.push(`Open model ${o.targetRatePerS}/s, ${n} worker(s), at the server: ${fmt(o.ratePerS, 1)}/s, CV per ${o.bucketMs} ms ${fmt(o.cv, 3)}, busiest bucket ÷ mean ${fmt(o.peakToMean)}.`);
    }
    lines.push('');
  }
  if (r.startup !== undefined) lines.push('## 7. Start-up of the installed CLI', '', `Medians of ${r.startup.rounds} rounds, commands alternating, pinned to the generator core.`, '', ...startupRows(r.startup), '');
  lines.push('## Peers', '', ...Object.entries(r.peers).map(([k, v]) => `- ${k}: ${v ?? 'missing (not installed)'}`), '');
  return `${lines.join('\n')}\n`;
}
