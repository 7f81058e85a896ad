import { defineScenario } from 'flowgauge';

/**
 * Time to first token against prompt length: real prompts from 11 to 2,200 words
 * (`data/prompts.jsonl`), each streamed in turn. The report's `stream.ttftByInputWords` gives
 * TTFT per length band, because one TTFT percentile over mixed lengths hides what a user with a
 * long prompt waits.
 */
export default defineScenario({
  name: 'prompt-sweep',
  description: 'Streams every prompt of a shipped file of varied lengths, 4 per second for a minute: TTFT by prompt length.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '4/s', duration: '60s' },
  data: { file: './data/prompts.jsonl', order: 'sequential' },
  journey: async (vu) => {
    const r = await vu.stream(vu.flowId, { input: String(vu.data.prompt) });
    vu.check('streams to its end', r.ok);
  },
  thresholds: {
    'stream.ttft.p95': '<2s',
    checks: '>=99%',
  },
});
