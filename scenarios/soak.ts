import { defineScenario } from 'flowgauge';

/** Half an hour at 80% of the pro limit: leaks, drift and slow degradation show here. */
export default defineScenario({
  name: 'soak',
  description: 'Mixed pro traffic at 80% of the limit for 30 minutes.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '80%', duration: '30m', maxInFlight: 500, gracefulStop: '30s' },
  mix: [
    { op: 'run', weight: 40, input: 'Summarise the release notes in one line.' },
    { op: 'stream', weight: 30, input: 'Explain rate limits to a new engineer.' },
    { op: 'listFlows', weight: 15 },
    { op: 'getFlow', weight: 10 },
    { op: 'getRun', weight: 5 },
  ],
  thresholds: {
    availability: '>=99.9%',
    'run.latency.p99': '<2s',
    'stream.ttft.p95': '<500ms',
    'ratelimit.premature429': '==0',
    'errors.rate': '<0.5%',
    dropped: '==0',
  },
});
