/**
 * The scenario files `flowgauge new` writes: one per form of traffic, each commented for a
 * first-time reader and runnable as written against the embedded service or a real target.
 * Each is a function of the scenario's name only, so the output is reproducible.
 */

/** The forms `flowgauge new` can write, and the file extension of each. */
export const NEW_FORMS = { mix: '.ts', journey: '.ts', steps: '.yaml' } as const;
export type NewForm = keyof typeof NEW_FORMS;

const mix = (name: string): string => `import { defineScenario } from 'flowgauge';

/**
 * ${name}: a traffic mix. Each start of the schedule sends ONE request, picked by weight.
 * Run it:   npx flowgauge run ./${name}.ts --duration 30s
 * Against a real service:   add --base-url https://…/v1 and set FLOWGAUGE_TOKEN.
 * The whole format: docs/scenarios.md in the flowgauge package.
 */
export default defineScenario({
  name: '${name}',
  description: 'run, stream and list traffic at half the pro limit.',
  // The token's tier: 'free' (100 requests/min), 'pro' (1,000/min) or { limitPerMinute: N }.
  tier: 'pro',
  load: {
    // Open model: starts follow the schedule whether or not earlier requests finished, and
    // latency counts from the intended start, so a stalled service shows in the percentiles.
    executor: 'constant-arrival-rate',
    // '50%' of the tier's limit; '100%' is the limit itself, '120%' goes over it (expect 429s).
    rate: '50%',
    duration: '60s',
    // A start that finds this many requests in flight is dropped and counted, never delayed.
    maxInFlight: 200,
  },
  mix: [
    // op: run | stream | getRun | listFlows | getFlow | createSession | getHistory | getUsage | trigger
    { op: 'run', weight: 4, input: 'Summarise the release notes in one line.' },
    { op: 'stream', weight: 3, input: 'Explain rate limits to a new engineer.' },
    { op: 'listFlows', weight: 2, query: { limit: 20 } },
    { op: 'getFlow', weight: 1 },
  ],
  // Pass/fail rules; the exit code is 1 when one fails. Without any, availability against the
  // 99.9 % objective and "no premature 429" still apply.
  thresholds: {
    'run.latency.p99': '<2s',
    'stream.ttft.p95': '<500ms',
    availability: '>=99.9%',
    'ratelimit.premature429': '==0',
  },
});
`;

const journey = (name: string): string => `import { defineScenario } from 'flowgauge';

/**
 * ${name}: a user's journey in code. Each start of the schedule runs ONE iteration of the
 * function below: several requests, think time and checks, timed as a whole and step by step.
 * Run it:   npx flowgauge run ./${name}.ts --duration 30s
 * Against a real service:   add --base-url https://…/v1 and set FLOWGAUGE_TOKEN.
 * The whole format: docs/scenarios.md in the flowgauge package.
 */
export default defineScenario({
  name: '${name}',
  description: 'Chat users at 1 per second: a session, two streamed turns, the history checked.',
  tier: 'pro',
  // One new user (iteration) per second; iterations still running when the schedule ends get
  // gracefulStop to finish.
  load: { executor: 'constant-arrival-rate', rate: '1/s', duration: '60s', gracefulStop: '10s' },
  // Synthetic prompts of a chosen length in words; or { file: './prompts.jsonl' } for your own rows.
  data: { synthetic: { words: { mean: 40, sd: 20, min: 5, max: 200 } } },
  journey: async (vu) => {
    // Every vu.<operation> resolves to { ok: true, value } or { ok: false, error }; none throws.
    const session = await vu.step('open session', () => vu.createSession({ flow_id: vu.flowId, user_id: \`user-\${vu.iteration}\` }));
    // fail() ends this iteration as failed (counted and shown in the report); the run goes on.
    if (!session.ok) return vu.fail(\`createSession: \${session.error.code}\`);
    for (let turn = 0; turn < 2; turn++) {
      const answer = await vu.step('turn', () => vu.stream(vu.flowId, { input: String(vu.data.prompt), session_id: session.value.id }));
      vu.check('every turn streams to its end', answer.ok);
      // Think time; it ends early when the run is stopped.
      await vu.sleep('1s');
    }
    const history = await vu.step('read history', () => vu.getHistory(session.value.id));
    // Two turns, each a user message and an answer.
    vu.check('history holds every turn', history.ok && history.value.messages.length === 4);
  },
  thresholds: {
    checks: '>=99%',
    'iterations.failed': '==0',
    'stream.ttft.p95': '<1s',
    availability: '>=99.9%',
  },
});
`;

const steps = (name: string): string => `# ${name}: a user's journey as steps, no code. Each start of the schedule runs ONE
# iteration of the steps below: requests, think time and checks, timed as a whole and by step.
# Run it:   npx flowgauge run ./${name}.yaml --duration 30s
# Against a real service:   add --base-url https://…/v1 and set FLOWGAUGE_TOKEN.
# The whole format: docs/scenarios.md in the flowgauge package.
name: ${name}
description: Chat users at 1 per second, a session, two streamed turns, the history checked.
# The token's tier: free (100 requests/min), pro (1,000/min) or { limitPerMinute: N }.
tier: pro
load:
  rate: 1/s
  duration: 60s
  # Iterations still running when the schedule ends get this long to finish.
  gracefulStop: 10s
# Synthetic prompts of a chosen length in words; or { file: ./prompts.jsonl } for your own rows.
data:
  synthetic:
    words: { mean: 40, sd: 20, min: 5, max: 200 }
steps:
  - op: createSession
    name: open session
    body: { user_id: "user-{{iteration}}" }
    # Keep the answer's id as {{session}} for the steps after this one.
    save: { session: id }
  - repeat: 2
    steps:
      - op: stream
        name: turn
        input: "{{data.prompt}}"
        sessionId: "{{session}}"
      # Think time between turns.
      - sleep: 1s
  - op: getHistory
    name: read history
    sessionId: "{{session}}"
    check:
      # Two turns, each a user message and an answer.
      history holds every turn: { path: messages.length, equals: 4 }
thresholds:
  checks: ">=99%"
  iterations.failed: "==0"
  availability: ">=99.9%"
`;

const TEMPLATES: Readonly<Record<NewForm, (name: string) => string>> = { mix, journey, steps };

/** The text of a new scenario file of `form` named `name` (a valid scenario name). */
export function scenarioTemplate(form: NewForm, name: string): string {
  return TEMPLATES[form](name);
}
