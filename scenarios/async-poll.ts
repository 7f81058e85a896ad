import { defineScenario } from 'flowgauge';

/**
 * Start a run and follow it to its end: a `running` answer is polled with `getRun` every
 * 250 ms (at most 40 times) until it completes or fails. Against a service that answers runs
 * synchronously, the first answer is already final and the journey only checks it.
 */
export default defineScenario({
  name: 'async-poll',
  description: 'Runs at 1 per second for a minute, each polled until it ends; the run must complete.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '1/s', duration: '60s' },
  journey: async (vu) => {
    const started = await vu.step('start', () => vu.run(vu.flowId, { input: `report ${vu.iteration}` }));
    if (!started.ok) return vu.fail(`run: ${started.error.code}`);
    let status = started.value.status;
    for (let poll = 0; status === 'running' && poll < 40 && !vu.signal.aborted; poll++) {
      await vu.sleep('250ms');
      const r = await vu.step('poll', () => vu.getRun(started.value.id));
      if (r.ok) status = r.value.status;
    }
    vu.check('run completed', status === 'completed');
  },
  thresholds: {
    'checks.run completed': '>=99%',
    'iteration.duration.p95': '<15s',
  },
});
