import { defineScenario } from 'flowgauge';

/**
 * What a chat user does: open a session, stream three turns with think time between them, and
 * read the history back. Each iteration is one user; its duration is measured from its
 * intended start, so a slow service shows in `iteration.duration` as well as per request.
 */
export default defineScenario({
  name: 'conversation',
  description: 'Chat users at 2 per second for a minute: a session, three streamed turns 2 s apart, the history checked.',
  tier: 'pro',
  load: { executor: 'constant-arrival-rate', rate: '2/s', duration: '60s', maxInFlight: 200 },
  data: { file: './data/prompts.jsonl' },
  journey: async (vu) => {
    const s = await vu.step('open session', () => vu.createSession({ flow_id: vu.flowId, user_id: `user-${vu.iteration}` }));
    if (!s.ok) return vu.fail(`createSession: ${s.error.code}`);
    for (let turn = 0; turn < 3; turn++) {
      const answer = await vu.step('turn', () => vu.stream(vu.flowId, { input: String(vu.data.prompt), session_id: s.value.id }));
      vu.check('every turn streams to its end', answer.ok);
      await vu.sleep('2s');
    }
    const h = await vu.step('read history', () => vu.getHistory(s.value.id));
    // Three turns, each a user message and an answer.
    vu.check('history holds every turn', h.ok && h.value.messages.length === 6);
  },
  thresholds: {
    checks: '>=99%',
    'iterations.failed': '==0',
    'stream.ttft.p95': '<1s',
    availability: '>=99.9%',
  },
});
