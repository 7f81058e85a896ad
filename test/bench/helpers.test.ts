import { describe, expect, it } from 'vitest';
import { flowListSchema } from '../../src/api/schemas.js';
import { benchPlan } from '../../bench/cases/context.js';
import { checkFloorRound, type StreamRun } from '../../bench/cases/streaming.js';
import { flowListBody } from '../../bench/lib/flow-list-body.js';
import { parseHey, parseWrk } from '../../bench/lib/peers.js';
import { checkTargets, renderBenchMarkdown, type BenchReport } from '../../bench/lib/report.js';
import { arrivalFigures, bucketCounts, maxOf, meanCv, median, medianOf, percentiles, ratio, spreadOf } from '../../bench/lib/stats.js';
import { perRoundCpuRatio, roundOrder, type WindowRun } from '../../bench/cases/cli.js';

describe('bench stats', () => {
  it('percentiles by nearest rank, without touching the input', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    const p = percentiles(xs);
    expect(p).toMatchObject({ count: 100, p50: 50, p90: 90, p99: 99, max: 100, mean: 50.5 });
    expect(xs[0]).toBe(100);
    expect(percentiles([]).count).toBe(0);
  });

  it('evenly spaced arrivals have a CV near 0; bursts have a high CV and peak', () => {
    const even = Array.from({ length: 5000 }, (_, i) => i * 0.2); // 5000/s for 1 s
    const e = arrivalFigures(even, 50, 0, 0);
    expect(e.cv).toBeLessThan(0.01);
    expect(e.ratePerS).toBeCloseTo(5000, -1);
    // The same count, all sent in the first 10 ms of each 100 ms.
    const bursty = Array.from({ length: 5000 }, (_, i) => Math.floor(i / 500) * 100 + (i % 500) * 0.02);
    const b = arrivalFigures(bursty, 50, 0, 0);
    expect(b.cv).toBeGreaterThan(0.9);
    expect(b.peakToMean).toBeCloseTo(2, 1);
  });

  it('trims the start and end of the arrival window alike for every tool', () => {
    const stamps = [0, 1, 2, ...Array.from({ length: 1000 }, (_, i) => 1000 + i), 5000];
    const f = arrivalFigures(stamps, 100, 1000, 500);
    expect(f.arrivals).toBe(1000);
    expect(f.windowS).toBeCloseTo(3.5);
    expect(bucketCounts([5, 15, 15, 99], 10, 0, 30)).toEqual([1, 2, 0]);
    expect(meanCv([2, 2, 2]).cv).toBe(0);
  });

  it('counts the window from the planned duration before the last arrival, past a stray early request', () => {
    // One request 1.2 s before a 5 s schedule of one arrival per ms (a run's preparation).
    const stamps = [-1200, ...Array.from({ length: 5000 }, (_, i) => i)];
    expect(arrivalFigures(stamps, 50, 1000, 500).ratePerS).toBeLessThan(990);
    const f = arrivalFigures(stamps, 50, 1000, 500, 5000);
    expect(f.ratePerS).toBe(1000);
    expect(f.windowS).toBeCloseTo(3.5);
  });

  it('medians and ratios', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(3, 0)).toBeUndefined();
    expect(ratio(undefined, 2)).toBeUndefined();
    // Over what was measured: a round that measured nothing is left out, not counted as 0.
    expect(medianOf([3, undefined, 1, Number.NaN, 2])).toBe(2);
    expect(medianOf([undefined])).toBeUndefined();
    expect(maxOf([3, undefined, 7, Number.POSITIVE_INFINITY])).toBe(7);
    expect(maxOf([])).toBeUndefined();
    expect(spreadOf([3, undefined, 1, 2, Number.NaN])).toEqual({ median: 2, min: 1, max: 3, n: 3 });
    expect(spreadOf([])).toBeUndefined();
  });

  it('rotates the tools of each round, so none always runs first or after the same one', () => {
    const tools = ['a', 'b', 'c'];
    expect([0, 1, 2, 3].map((r) => roundOrder(tools, r).join(''))).toEqual(['abc', 'bca', 'cab', 'abc']);
    expect(tools).toEqual(['a', 'b', 'c']);
  });

  it('takes a CPU ratio per round between the windows of that round, not a ratio of medians', () => {
    const w = (tool: WindowRun['tool'], round: number, cpu: number | undefined): WindowRun => ({ tool, round, requests: 1000, seconds: 1, requestsPerS: 1000, cpuUsPerRequest: cpu, maxRssMb: 100 });
    // The machine slows down in round 1: both tools cost twice as much there; the per-round ratio holds at 1.2.
    const cli = [w('flowgauge CLI', 0, 12), w('flowgauge CLI', 1, 24), w('flowgauge CLI', 2, 12)];
    const ac = [w('autocannon', 0, 10), w('autocannon', 1, 20), w('autocannon', 2, undefined)];
    expect(perRoundCpuRatio(cli, ac)).toEqual({ median: 1.2, min: 1.2, max: 1.2, n: 2 });
  });
});

describe('bench peers', () => {
  it('reads wrk and hey summaries', () => {
    const wrk = 'Running 8s test @ http://127.0.0.1:1/v1/flows\n  1 threads and 50 connections\n  123456 requests in 8.00s, 500.00MB read\n  Socket errors: connect 0, read 2, write 0, timeout 1\nRequests/sec:  15432.00\n';
    expect(parseWrk(wrk)).toEqual({ requests: 123456, durationS: 8, errors: 3 });
    expect(parseWrk('nothing')).toBeUndefined();
    const hey = 'Summary:\n  Total:\t20.0012 secs\n  Requests/sec:\t4999.7\n\nStatus code distribution:\n  [200]\t99990 responses\n  [503]\t4 responses\n\nError distribution:\n  [6]\tGet "http://x": EOF\n';
    expect(parseHey(hey)).toEqual({ requests: 99994, durationS: 20.0012, errors: 10 });
  });

  it('serves a ~4 KB flow list that the client schema accepts', () => {
    const body = flowListBody();
    expect(body.length).toBeGreaterThan(3800);
    expect(body.length).toBeLessThan(4600);
    expect(flowListSchema.safeParse(JSON.parse(body)).success).toBe(true);
  });
});

describe('bench report', () => {
  it('judges targets and renders missing peers as missing', () => {
    const targets = checkTargets({
      saturation: [
        { server: 'node:http', available: true, tools: {}, ratioToAutocannon: 1.05, ratioNoValidateToAutocannon: 1.1, ratioWrkToAutocannon: 1.3 },
        { server: 'nginx', available: false, tools: {}, ratioToAutocannon: undefined, ratioNoValidateToAutocannon: undefined, ratioWrkToAutocannon: undefined },
      ],
      openModel: undefined,
      streaming: undefined,
      memory: { requests: 1_000_000, elapsedS: 60, rssStartMb: 80, rssAtTenthMb: 120, rssEndMb: 125, rssSampledPeakMb: 130, maxRssMb: 160, heapUsedMb: 20, series: [], growthMb: 5, nodeFlags: [] },
    });
    expect(targets.map((t) => [t.id, t.passed])).toEqual([
      ['1.saturation.node:http', true],
      ['4.memory.peak', false],
      ['4.memory.growth', true],
    ]);
    const report: BenchReport = {
      schema: 'flowgauge/bench@1',
      date: '2026-01-01T00:00:00Z',
      quick: true,
      machine: { cpus: 2, node: 'v20', pinned: true, loadAverageStart: [1, 1, 1], loadAverageEnd: [1, 1, 1] },
      peers: { hey: null },
      saturation: [{ server: 'nginx', available: false, tools: {}, ratioToAutocannon: undefined, ratioNoValidateToAutocannon: undefined, ratioWrkToAutocannon: undefined }],
      openModel: undefined,
      streaming: undefined,
      memory: undefined,
      targets,
      elapsedS: 1,
    };
    const md = renderBenchMarkdown(report);
    expect(md).toContain('| nginx | missing (not installed)');
    expect(md).toContain('- hey: missing (not installed)');
    expect(md).toContain('**missed**');
  });

  it('plans a quick smoke run shorter than the full one', () => {
    const full = benchPlan(false);
    const quick = benchPlan(true);
    expect(full.memoryRequests).toBe(1_000_000);
    expect(full.openS).toBe(20);
    expect(quick.openS).toBeLessThan(full.openS);
    expect(quick.memoryRequests).toBeLessThan(full.memoryRequests);
    const smoke = benchPlan(true, [], 200, { tokens: 20, intervalMs: 20 }, true);
    expect(smoke.smoke).toBe(true);
    expect(smoke.saturationS).toBeLessThan(quick.saturationS);
    expect(smoke.manyStreams).toBeLessThan(full.manyStreams ?? 10_000);
  });
});

describe('bench streaming floor rounds', () => {
  const pacing = { tokens: 20, intervalMs: 20 };
  const floorRun = (streams: number, elapsedS: number, p99: number): StreamRun => ({
    tool: 'floor',
    streams,
    tokens: 0,
    elapsedS,
    tokensPerS: 0,
    cpuS: 0,
    errors: 0,
    connections: 2000,
    plannedS: 20,
    ttftErrorMs: { count: 100, p50: 0.5, p90: 1, p99, max: p99, mean: 0.6 },
  });

  it('keeps a round whose connections carried streams back to back for about the plan', () => {
    // 20 s at 0.42 s a stream: 47 fit per connection.
    expect(checkFloorRound(floorRun(2000 * 45, 20.6, 0.8), pacing, 20).invalid).toBeUndefined();
  });

  it('marks a round of one stream per connection, or one that ran far past its plan, invalid and leaves it out of the median', () => {
    const slow = checkFloorRound(floorRun(2000, 192, 4.55), pacing, 20);
    expect(slow.invalid).toMatch(/1\.00 streams per connection, where 47 fit in 20 s; ran 192\.0 s for a 20 s plan/);
    const report = {
      saturation: undefined,
      openModel: undefined,
      memory: undefined,
      journey: undefined,
      workers: undefined,
      streaming: {
        concurrency: 2000,
        throughput: { flowgauge: [], bare: [] },
        flowgaugeTokensPerS: undefined,
        bareTokensPerS: undefined,
        ratioToBare: undefined,
        pacedRuns: [],
        floorRuns: [checkFloorRound(floorRun(2000 * 45, 20.6, 0.8), pacing, 20), slow],
        paced: undefined,
        ttftErrorP99Ms: undefined,
        floorTtftErrorP99Ms: 0.8,
      },
    };
    const valid = checkTargets(report).find((t) => t.id === '3.stream.floor.valid');
    expect(valid).toMatchObject({ observed: 1, passed: false, target: '2 of 2' });
    const md = renderBenchMarkdown({ schema: 'flowgauge/bench@1', date: 'd', quick: true, machine: { cpus: 2, node: 'v20', pinned: true, loadAverageStart: [1, 1, 1], loadAverageEnd: [1, 1, 1] }, peers: {}, ...report, targets: [], elapsedS: 1 });
    expect(md).toContain('4.550 (invalid)');
    expect(md).toContain('Floor round 2 is invalid and left out of the median');
  });
});

describe('bench targets of issue 31', () => {
  const figures = (cv: number) => ({ ratePerS: 5000, cv, peakToMean: 1.1, bucketMs: 50, windowS: 18.5, arrivals: 92_500 });
  const tool = (name: string, cv: number, cpuUsPerArrival: number, contended: boolean) => ({
    tool: name, available: true, atServer: figures(cv), achievedRatio: 1, generator: undefined, cpuUsPerArrival, contended,
  });

  it('judges the open model: CPU per arrival against hey quiet, the CV beside a busy process, each from its own row', () => {
    const openModel = {
      targetRatePerS: 5000, durationS: 20, bucketMs: 50,
      tools: [tool('flowgauge', 0.01, 40, false), tool('hey', 0.0, 25, false), tool('flowgauge', 0.06, 10, true), tool('hey', 0.05, 10, true)],
    };
    const t = checkTargets({ saturation: undefined, openModel, streaming: undefined, memory: undefined });
    // 40 ÷ 25 = 1.6: over 1.5 (the contended rows' CPU must not be the one read).
    expect(t.find((x) => x.id === '2.open.cpu')).toMatchObject({ observed: 1.6, passed: false });
    // The quiet CV passes, the contended one (0.06) does not.
    expect(t.find((x) => x.id === '2.open.cv')).toMatchObject({ observed: 0.01, passed: true });
    expect(t.find((x) => x.id === '2.open.contended.cv')).toMatchObject({ observed: 0.06, passed: false });
    expect(t.find((x) => x.id === '2.open.contended.cv')?.description).toContain("hey's: 0.050");
  });

  it('judges 10,000 streams: the worst opening stall, the median p99 ÷ the valid floor rounds, the peak RSS', () => {
    const run = (stallMs: number, p99: number, rss: number) => ({ tool: 'flowgauge', streams: 30_000, tokens: 600_000, elapsedS: 35, tokensPerS: 17_000, cpuS: 20, errors: 0, maxRssMb: rss, ttftErrorMs: { count: 20_000, p50: 0.03, p90: 0.3, p99, max: 100, mean: 1 }, coldOpeningLoopDelayMs: { p99: 6, max: stallMs } });
    const floor = (p99: number, invalid?: string) => ({ tool: 'floor', streams: 31_000, tokens: 0, elapsedS: 25, tokensPerS: 0, cpuS: 5, errors: 0, ttftErrorMs: { count: 20_000, p50: 0.03, p90: 0.1, p99, max: 20, mean: 0.1 }, ...(invalid === undefined ? {} : { invalid }) });
    const manyStreams = {
      concurrency: 10_000, pacing: { tokens: 20, intervalMs: 500 }, rounds: 2,
      runs: [run(30, 10, 300), run(55, 14, 320)],
      singleThreadedGcRuns: [], singleThreadedGcTtftErrorP99Ms: undefined,
      floorRuns: [floor(8), floor(1, 'ran 90.0 s for a 25 s plan')],
      openingStallMaxMs: 55, openingLoopDelayP99Ms: 6, ttftErrorP99Ms: 12, floorTtftErrorP99Ms: 8, rampTtftErrorP99Ms: 11, maxRssMb: 320,
    };
    const t = checkTargets({ saturation: undefined, openModel: undefined, streaming: undefined, manyStreams, memory: undefined });
    expect(t.find((x) => x.id === '3b.many.stall')).toMatchObject({ observed: 55, passed: false });
    expect(t.find((x) => x.id === '3b.many.ttft.floor')).toMatchObject({ observed: 1.5, passed: true });
    expect(t.find((x) => x.id === '3b.many.rss')).toMatchObject({ observed: 320, passed: true });
    expect(t.find((x) => x.id === '3b.many.floor.valid')).toMatchObject({ observed: 1, passed: false, target: '2 of 2' });
    const md = renderBenchMarkdown({ schema: 'flowgauge/bench@1', date: 'd', quick: false, machine: { cpus: 2, node: 'v20', pinned: true, loadAverageStart: [1, 1, 1], loadAverageEnd: [1, 1, 1] }, peers: {}, saturation: undefined, openModel: undefined, streaming: undefined, manyStreams, memory: undefined, targets: t, elapsedS: 1 });
    expect(md).toContain('## 3b. 10,000 long-lived streams (20 tokens, one every 500 ms)');
    expect(md).toContain('0.03 / 1.00 (invalid)');
  });

  it('judges the installed CLI against unique bodies only when that pass ran, and leads with it', () => {
    const cli = { available: true, rounds: 2, windowS: 6, tools: {}, cpuCliToLibrary: 0.9, rssCliToLibrary: 0.9, rpsCliToAutocannon: 1.3, rpsLibraryToAutocannon: 1.2, cpuCliToWrk: 1.2, cpuLibraryToWrk: 1.3, cpuCliToWrkPerRound: { median: 1.6, min: 1.4, max: 1.8, n: 2 } };
    const memory = { requests: 1_000_000, elapsedS: 60, rssStartMb: 80, rssAtTenthMb: 120, rssEndMb: 125, rssSampledPeakMb: 130, maxRssMb: 140, heapUsedMb: 20, series: [], growthMb: 5, nodeFlags: [] };
    const without = checkTargets({ saturation: undefined, openModel: undefined, streaming: undefined, memory, cli });
    expect(without.map((t) => t.id)).not.toContain('8.cli.unique');
    expect(without.map((t) => t.id)).not.toContain('8.cli.unique.cpu');
    // The per-round ratio is judged (1.6 > 1.5), not the ratio of medians (1.2).
    expect(without.find((t) => t.id === '8.cli.wrk')).toMatchObject({ observed: 1.6, passed: false, target: '≤ 1.50' });
    const unique = { tools: {}, rpsCliToAutocannon: 0.58, cpuCliToAutocannon: { median: 1.05, min: 0.98, max: 1.3, n: 3 } };
    const withUnique = checkTargets({ saturation: undefined, openModel: undefined, streaming: undefined, memory, cli: { ...cli, unique } });
    expect(withUnique[0]).toMatchObject({ id: '8.cli.unique.cpu', observed: 1.05, passed: true, target: '≤ 1.11' });
    expect(withUnique.find((t) => t.id === '8.cli.unique')).toMatchObject({ observed: 0.58, passed: false, target: '≥ 0.90' });
    const md = renderBenchMarkdown({ schema: 'flowgauge/bench@1', date: 'd', quick: true, machine: { cpus: 2, node: 'v20', pinned: true, loadAverageStart: [1, 1, 1], loadAverageEnd: [1, 1, 1] }, peers: {}, saturation: undefined, openModel: undefined, streaming: undefined, memory, cli: { ...cli, unique }, targets: withUnique, elapsedS: 1 });
    expect(md).toContain('CLI ÷ autocannon 1.05 (0.98–1.30, 3 rounds)');
    // The headline case comes before every other section.
    expect(md.indexOf('## 8.')).toBeLessThan(md.indexOf('## 4. Memory'));
    expect(md.indexOf('| tool, a different body every answer |')).toBeLessThan(md.indexOf('| tool, identical bodies |'));
  });
});
