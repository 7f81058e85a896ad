/**
 * The fault matrix: one short open-model run per way a target can misbehave, through
 * `executeRun`, against raw loopback servers (`fault-server.ts`) and the reference service's
 * own faults. For each case the run must resolve (no crash, no rejection), keep sending on
 * schedule (`load.started` equals the schedule), classify every request as DESIGN's SLI table
 * says (error code under `ops.<op>.errors`, SLI good/bad/excluded), lose no record
 * (every started request is counted or cancelled) and build a schema-valid report.
 *
 * Timeouts are client settings (300 ms against a server that never answers), not timing
 * assertions: a stalled server stays stalled however slow this machine is.
 */
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { REPORT_JSON_SCHEMA, renderMarkdown, type Report } from '../../src/report/index.js';
import { executeRun } from '../../src/run/index.js';
import { resolveScenario } from '../../src/scenario/index.js';
import { startReferenceService } from '../../src/target/index.js';
import { CASES, DURATION, RATE, SCHEDULED, TOKEN, type MatrixCase, type Op } from './fault-cases.js';
import { startFaultServer, type FaultServer } from './fault-server.js';
import { recordFigures } from './figures.js';

const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);

interface CaseFigure {
  readonly name: string;
  readonly op: Op;
  readonly classification: string;
  readonly sli: string;
}

const figures = { cases: 0, crashes: 0, recordsLost: 0, requests: 0, table: [] as CaseFigure[] };
let uncaught = 0;
const onUncaught = (): void => {
  uncaught++;
};
process.on('uncaughtException', onUncaught);
process.on('unhandledRejection', onUncaught);

afterAll(() => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  figures.crashes += uncaught;
  const order = CASES.map((c) => c.name);
  figures.table.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  recordFigures('faultMatrix', figures);
  expect(figures.crashes).toBe(0);
});

async function runCase(c: MatrixCase): Promise<Report> {
  let raw: FaultServer | undefined;
  let service: Awaited<ReturnType<typeof startReferenceService>> | undefined;
  let baseUrl: string;
  if (c.raw !== undefined) {
    raw = await startFaultServer(c.raw, { refuseAfterPrepare: c.refuse === true });
    baseUrl = raw.baseUrl;
  } else {
    service = await startReferenceService({
      latency: 'none',
      tokens: { [TOKEN]: { account: 'acct_b', tier: { limitPerMinute: 1_000_000 } } },
      ...c.service,
    });
    baseUrl = service.baseUrl;
  }
  const client = createClient({ baseUrl, token: TOKEN, connections: 16, ...(c.timeouts ? { timeouts: c.timeouts } : {}) });
  const load = c.load ?? { rate: RATE, duration: DURATION, scheduled: SCHEDULED };
  try {
    const outcome = await executeRun({
      scenario: resolveScenario({
        name: 'fault-matrix',
        tier: 'pro',
        // A grace period long past every case's deadlines: a request still open at its end would
        // be load.cut, not classified; on a starved machine (26 cases, five at once) an answer
        // the server sent at once can be read seconds later. The run ends when the last request
        // does, so a long grace costs nothing when nothing hangs.
        load: { executor: 'constant-arrival-rate', rate: load.rate, duration: load.duration, gracefulStop: '60s' },
        mix: [{ op: c.op, weight: 1 }],
      }),
      client,
      target: { baseUrl, embedded: false },
    });
    if (raw !== undefined && c.refuse !== true) expect(raw.measured(), 'requests the server saw').toBe(load.scheduled);
    return outcome.report;
  } finally {
    await client.close();
    await raw?.close();
    await service?.close();
  }
}

// Cases run a few at a time: each mostly waits on its schedule and on stalled sockets.
describe.concurrent('fault matrix', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      figures.cases++;
      let report: Report;
      try {
        report = await runCase(c);
      } catch (err) {
        figures.crashes++;
        throw err;
      }
      const scheduled = c.load?.scheduled ?? SCHEDULED;
      // The run goes on: every arrival of the schedule was started, none dropped.
      expect(report.load.started).toBe(scheduled);
      expect(report.load.dropped).toBe(0);
      const s = report.ops[c.op];
      const counted = (s?.count ?? 0) + (report.load.cancelled ?? 0);
      figures.recordsLost += Math.max(0, report.load.started - counted);
      figures.requests += report.load.started;
      expect(counted, 'records lost').toBe(report.load.started);
      expect(report.load.cancelled ?? 0).toBe(0);
      expect(Object.keys(report.ops)).toEqual([c.op]);

      if (typeof c.expect === 'function') {
        c.expect(report);
      } else {
        const e = c.expect;
        expect(s?.[e.sli], `${e.sli} of ${JSON.stringify(s)}`).toBe(scheduled);
        expect(s?.errors).toEqual(e.error === undefined ? {} : { [e.error]: scheduled });
        expect(s?.statuses).toEqual(e.status === 0 ? {} : { [e.status]: scheduled });
      }
      // The report is whole: schema-valid, renderable, free of the token.
      expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
      expect(renderMarkdown(report).length).toBeGreaterThan(0);
      expect(JSON.stringify(report)).not.toContain(TOKEN);

      const errs = Object.entries(s?.errors ?? {}).map(([k, v]) => `${k} ×${v}`);
      const slis = (['good', 'bad', 'excluded'] as const).filter((k) => (s?.[k] ?? 0) > 0).map((k) => `${k} ${s?.[k]}`);
      figures.table.push({ name: c.name, op: c.op, classification: errs.join(', ') || '(none)', sli: slis.join(', ') });
    });
  }
});
