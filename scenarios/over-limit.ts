import { defineScenario } from 'flowgauge';

/**
 * 120% of the free tier: a fifth of each window should be refused with 429. Studies when the
 * first 429 comes, how Reset behaves and how fast the service recovers. Expected 429s are
 * excluded from availability; premature ones (under the limit) are not.
 */
export default defineScenario({
  name: 'over-limit',
  description: 'Free tier at 120% of its limit for 3 minutes, to study 429 behaviour.',
  tier: 'free',
  load: { executor: 'constant-arrival-rate', rate: '120%', duration: '3m' },
  mix: [
    { op: 'run', weight: 3, input: 'Hello' },
    { op: 'listFlows', weight: 1 },
  ],
  thresholds: {
    'ratelimit.premature429': '==0',
    availability: '>=99.9%',
  },
});
