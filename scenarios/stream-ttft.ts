import { defineScenario } from 'flowgauge';

/** Streaming only, at half the pro limit: time to first token and the gaps between tokens. */
export default defineScenario({
  name: 'stream-ttft',
  description: 'Stream traffic at 50% of the pro limit for 2 minutes, judged on TTFT and inter-token latency.',
  tier: 'pro',
  load: { executor: 'poisson', rate: '50%', duration: '2m', burstiness: 1 },
  mix: [
    { op: 'stream', weight: 3, input: 'Tell a short story about a lighthouse.' },
    { op: 'stream', weight: 1, input: 'Hi' },
  ],
  thresholds: {
    'stream.timeToStart.p95': '<300ms',
    'stream.ttft.p95': '<500ms',
    'stream.ttft.p99': { expr: '<1s', abortOnFail: true },
    'stream.itl.p99': '<100ms',
    'stream.tpot.p95': '<50ms',
    'errors.rate': '<1%',
  },
});
