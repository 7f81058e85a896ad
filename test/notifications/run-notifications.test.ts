/**
 * `executeRun` with a receiver against the reference service: every completion the client
 * saw is notified exactly once, the event-name set is reported, triggers are matched.
 */
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { loadHtmlAssets } from '../../src/cli/report-formats.js';
import { createRunMetrics } from '../../src/export/index.js';
import { renderHtml } from '../../src/report/html.js';
import { REPORT_JSON_SCHEMA, renderMarkdown } from '../../src/report/index.js';
import { runWithReceiver, TOKEN, WEBHOOK_SECRET, type NotifiedRun } from './helpers.js';

const cleanups: NotifiedRun[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((r) => r.close()));
});

const validate = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);

const mixed = (name: string): Record<string, unknown> => ({
  name,
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '60/s', duration: '500ms' },
  mix: [
    { op: 'run', weight: 2 },
    { op: 'stream', weight: 1 },
    { op: 'trigger', weight: 1 },
  ],
});

describe('notifications during a run', () => {
  it('matches every run and stream completion, with the flow.run event names, and every trigger by flow order', async () => {
    const metrics = createRunMetrics({ scenario: 'notify', tier: 'pro' });
    const r = await runWithReceiver(mixed('notify'), { run: { metrics } });
    cleanups.push(r);
    const { report } = r.outcome;
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    const n = report.notifications;
    expect(n).toBeDefined();
    if (n === undefined) return;
    const runs = (report.ops.run?.count ?? 0) + (report.ops.stream?.count ?? 0);
    const triggers = report.ops.trigger?.count ?? 0;
    expect(runs).toBeGreaterThan(0);
    expect(triggers).toBeGreaterThan(0);
    expect(n.eventSet).toBe('flow.run');
    expect(n.expected).toBe(runs);
    expect(n.matched).toBe(runs);
    expect(n).toMatchObject({ missing: 0, duplicate: 0, outOfOrder: 0, statusMismatch: 0, unsolicited: 0 });
    expect(n.events['flow.run.completed']).toBe(runs + triggers);
    expect(n.events['flow.run.started']).toBe(runs + triggers);
    expect(n.triggers).toEqual({ accepted: triggers, matchedByRunId: 0, matchedByFlowOrder: triggers, unresolved: 0 });
    expect(Object.values(n.rejected).reduce((a, b) => a + b, 0)).toBe(0);
    expect(n.deliveryLatencyMs.count + n.beforeClient).toBe(runs);
    expect(report.asyncRuns?.triggers.completedByNotification).toBe(triggers);
    const md = renderMarkdown(report);
    expect(md).toContain('## Notifications');
    expect(md).not.toContain(WEBHOOK_SECRET);
    const html = renderHtml(report, await loadHtmlAssets());
    expect(html).toContain('<section id="notifications">');
    expect(html).toContain(`<dt>notified</dt><dd>${runs}</dd>`);
    expect(html).toContain('<dt>missing</dt><dd><span class="badge pass">0</span></dd>');
    expect(html).toContain('<section id="async">');
    expect(html).not.toContain(WEBHOOK_SECRET);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/flowgauge_notifications_total\{[^}]*result="matched"[^}]*\} \d+/);
    expect(JSON.stringify(report)).not.toContain(WEBHOOK_SECRET);
    expect(JSON.stringify(report)).not.toContain(TOKEN);
  });

  it('reports the flow.completed name set when the service uses it', async () => {
    const r = await runWithReceiver(
      { ...mixed('notify-flow'), mix: [{ op: 'run', weight: 1 }] },
      { service: { eventNames: 'flow' } },
    );
    cleanups.push(r);
    const n = r.outcome.report.notifications;
    expect(n?.eventSet).toBe('flow');
    expect(n?.events['flow.completed']).toBe(r.outcome.report.ops.run?.count);
    expect(n?.events['flow.run.started']).toBeUndefined();
    expect(n?.matched).toBe(r.outcome.report.ops.run?.count);
  });

  it('counts completions whose notifications never come as missing after the grace period', async () => {
    // The receiver subscribes to started events only: completions are never delivered.
    const r = await runWithReceiver(
      { ...mixed('notify-missing'), load: { executor: 'constant-arrival-rate', rate: '20/s', duration: '250ms' }, mix: [{ op: 'run', weight: 1 }] },
      { events: ['flow.run.started'], graceMs: 300 },
    );
    cleanups.push(r);
    const n = r.outcome.report.notifications;
    const runs = r.outcome.report.ops.run?.count ?? 0;
    expect(runs).toBe(5);
    expect(n).toMatchObject({ expected: runs, matched: 0, missing: runs, awaiting: 0 });
    expect(n?.events).toEqual({ 'flow.run.started': runs });
  });
});
