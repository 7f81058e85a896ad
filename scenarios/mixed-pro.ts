import { defineScenario } from 'flowgauge';

/** Realistic pro traffic at the full limit for a minute: the release gate. */
export default defineScenario({
  name: 'mixed-pro',
  description: 'run, stream, listFlows, getFlow and getRun at 100% of the pro limit for 60 seconds.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '100%', duration: '60s', maxInFlight: 500, gracefulStop: '10s' },
  mix: [
    { op: 'run', weight: 40, input: 'Summarise the release notes in one line.' },
    { op: 'stream', weight: 30, input: 'Explain rate limits to a new engineer.' },
    { op: 'listFlows', weight: 15, query: { limit: 20 } },
    { op: 'getFlow', weight: 10 },
    { op: 'getRun', weight: 5 },
  ],
  thresholds: {
    'run.latency.p99': '<2s',
    'stream.ttft.p95': '<500ms',
    availability: '>=99.9%',
    'ratelimit.premature429': '==0',
    'errors.rate': '<1%',
  },
});
