import { defineScenario } from 'flowgauge';

/** The pro tier's full allowance (1000/min) for three windows. */
export default defineScenario({
  name: 'pro-at-limit',
  description: 'Pro tier at exactly 100% of its 1000 requests per minute, for 3 minutes.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '100%', duration: '3m', maxInFlight: 500 },
  mix: [
    { op: 'run', weight: 6, input: 'Summarise: flowgauge measures rate limits.' },
    { op: 'stream', weight: 2, input: 'Write one sentence about load testing.' },
    { op: 'listFlows', weight: 2, query: { limit: 20 } },
  ],
  thresholds: {
    'ratelimit.premature429': '==0',
    availability: '>=99.9%',
    'run.latency.p99': '<2s',
    dropped: '==0',
  },
});
