import { defineScenario } from 'flowgauge';

/** listFlows over its page sizes and offsets (default 20, maximum 100) and status filters. */
export default defineScenario({
  name: 'list-pagination',
  description: 'listFlows with various limit, offset and status values, at 30% of the pro limit for 1 minute.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '30%', duration: '1m' },
  mix: [
    { op: 'listFlows', weight: 3 },
    { op: 'listFlows', weight: 2, query: { limit: 1, offset: 0 } },
    { op: 'listFlows', weight: 2, query: { limit: 5, offset: 10 } },
    { op: 'listFlows', weight: 2, query: { limit: 100, offset: 0 } },
    { op: 'listFlows', weight: 1, query: { limit: 20, offset: 1000 } },
    { op: 'listFlows', weight: 1, query: { status: 'published' } },
    { op: 'listFlows', weight: 1, query: { status: 'draft', limit: 50 } },
  ],
  thresholds: {
    'listFlows.latency.p99': '<500ms',
    'errors.rate': '<1%',
    availability: '>=99.9%',
  },
});
