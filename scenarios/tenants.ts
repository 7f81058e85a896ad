import { defineScenario } from 'flowgauge';

/**
 * Two tenants at once: a free-tier one at 150 % of its limit beside a pro-tier one at 80 % of
 * its own. The limiter must throttle the free tenant (and only when it is over its limit) and
 * never the pro one. Tokens come from FREE_TOKEN and PRO_TOKEN (against the embedded service,
 * its demo token of each tier).
 */
export default defineScenario({
  name: 'tenants',
  description: 'A free tenant at 150% of its limit beside a pro tenant at 80%: the limiter must isolate them.',
  scenarios: {
    free: {
      tier: 'free',
      tokenEnv: 'FREE_TOKEN',
      load: { executor: 'constant-arrival-rate', rate: '150%', duration: '60s' },
      mix: [{ op: 'listFlows' }],
    },
    pro: {
      tier: 'pro',
      tokenEnv: 'PRO_TOKEN',
      load: { executor: 'constant-arrival-rate', rate: '80%', duration: '60s' },
      mix: [
        { op: 'run', weight: 2 },
        { op: 'stream', weight: 1 },
        { op: 'listFlows', weight: 1 },
      ],
    },
  },
  thresholds: {
    'pro:ratelimit.responses429': '==0',
    'pro:availability': '>=99.9%',
    'free:ratelimit.premature429': '==0',
    'free:ratelimit.expected429': '>0',
  },
});
