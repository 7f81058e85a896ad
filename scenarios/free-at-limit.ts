import { defineScenario } from 'flowgauge';

/** The free tier's full allowance (100/min) for three windows: no 429 should come early. */
export default defineScenario({
  name: 'free-at-limit',
  description: 'Free tier at exactly 100% of its 100 requests per minute, for 3 minutes.',
  tier: 'free',
  load: { executor: 'constant-arrival-rate', rate: '100%', duration: '3m' },
  mix: [
    { op: 'run', weight: 6, input: 'Summarise: flowgauge measures rate limits.' },
    { op: 'stream', weight: 2, input: 'Write one sentence about load testing.' },
    { op: 'listFlows', weight: 2, query: { limit: 20 } },
  ],
  thresholds: {
    'ratelimit.premature429': '==0',
    availability: '>=99.9%',
    'run.latency.p99': '<2s',
  },
});
