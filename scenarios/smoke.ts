import { defineScenario } from 'flowgauge';

/** A few seconds of every kind of request, well under the pro limit: does everything answer? */
export default defineScenario({
  name: 'smoke',
  description: 'Every operation once or twice over 5 seconds, far below the pro limit.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '4/s', duration: '5s', gracefulStop: '10s' },
  mix: [
    { op: 'run', input: 'Hello from flowgauge smoke' },
    { op: 'stream', input: 'Count to five' },
    { op: 'getRun' },
    { op: 'listFlows', query: { limit: 20, offset: 0 } },
    { op: 'getFlow' },
    { op: 'createSession' },
    { op: 'getHistory' },
    { op: 'getUsage', query: { granularity: 'day' } },
  ],
  thresholds: {
    availability: '>=99%',
    'errors.rate': '<5%',
    'ratelimit.premature429': '==0',
  },
});
