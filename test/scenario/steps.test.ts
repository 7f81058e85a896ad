import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { compileSteps, readPath, resolveScenario, type StepInput, type Vu } from '../../src/scenario/index.js';

const base = { name: 'steps', tier: 'pro', load: { rate: '1/s', duration: '1s' } };

function issuesOf(raw: unknown): { path: string; message: string }[] {
  try {
    resolveScenario(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).issues];
  }
  throw new Error('expected a ConfigError');
}

const messageAt = (raw: unknown, path: string): string => {
  const all = issuesOf(raw);
  const found = all.find((i) => i.path === path);
  expect(found, `no issue at ${path} in ${JSON.stringify(all)}`).toBeDefined();
  return (found as { message: string }).message;
};

describe('steps: every problem by its path', () => {
  it('names an unknown operation inside a repeat, with the allowed ones', () => {
    const raw = { ...base, steps: [{ op: 'listFlows' }, { sleep: '1s' }, { repeat: 2, steps: [{ op: 'strem', input: 'x' }] }] };
    expect(messageAt(raw, 'steps[2].steps[0].op')).toMatch(/^unknown operation "strem"; allowed: run, stream, getRun/);
  });

  it('says which fields an operation takes and needs', () => {
    expect(messageAt({ ...base, steps: [{ op: 'getHistory' }] }, 'steps[0].sessionId')).toBe('is required for getHistory');
    expect(messageAt({ ...base, steps: [{ op: 'listFlows', input: 'x' }] }, 'steps[0].input')).toBe('listFlows takes no input; it takes query');
    expect(messageAt({ ...base, steps: [{ op: 'listFlows', sav: {} }] }, 'steps[0].sav')).toMatch(/unknown field.*allowed: op, name/);
  });

  it('refuses a step of no known kind, a bad sleep and a repeat out of range', () => {
    expect(messageAt({ ...base, steps: [{ wait: 1 }] }, 'steps[0]')).toMatch(/must be \{ op, … \}, \{ sleep/);
    expect(messageAt({ ...base, steps: [{ sleep: 'soon' }] }, 'steps[0].sleep')).toMatch(/must be a duration up to 1h/);
    expect(messageAt({ ...base, steps: [{ repeat: 0, steps: [{ sleep: 1 }] }] }, 'steps[0].repeat')).toMatch(/from 1 to 10000/);
  });

  it('refuses a template that no earlier step saves, listing the known names', () => {
    const raw = {
      ...base,
      steps: [
        { op: 'createSession', save: { session: 'id' } },
        { op: 'getHistory', sessionId: '{{sesion}}' },
      ],
    };
    expect(messageAt(raw, 'steps[1]')).toBe('{{sesion}} is not saved by an earlier step; known: {{session}}, {{data.<column>}}, {{iteration}}, {{flowId}}');
  });

  it('refuses bad checks and reserved save names', () => {
    const check = { ...base, steps: [{ op: 'listFlows', check: { 'has flows': { path: 'flows.length' } } }] };
    expect(messageAt(check, 'steps[0].check["has flows"]')).toMatch(/must be \{ path, equals \}/);
    const regex = { ...base, steps: [{ op: 'listFlows', check: { x: { path: 'a', matches: '(' } } }] };
    expect(messageAt(regex, 'steps[0].check.x.matches')).toBe('must be a valid regular expression');
    expect(messageAt({ ...base, steps: [{ op: 'listFlows', save: { data: 'x' } }] }, 'steps[0].save.data')).toMatch(/reserved/);
  });

  it('takes exactly one of mix, journey and steps; data only with a journey', () => {
    expect(messageAt(base, 'mix')).toBe('a scenario needs one of mix, journey or steps');
    expect(messageAt({ ...base, mix: [{ op: 'listFlows' }], steps: [{ op: 'listFlows' }] }, 'steps')).toBe('a scenario has one of mix, journey or steps, not mix and steps');
    expect(messageAt({ ...base, mix: [{ op: 'listFlows' }], data: { file: 'x.csv' } }, 'data')).toMatch(/data feeds a journey or steps/);
    expect(messageAt({ ...base, journey: 'not code' }, 'journey')).toMatch(/must be a function/);
  });
});

describe('readPath', () => {
  const value = { id: 's1', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant' }], n: 0 };
  it('reads own properties, indexes and lengths, and nothing of the prototype', () => {
    expect(readPath(value, 'id')).toBe('s1');
    expect(readPath(value, 'messages.length')).toBe(2);
    expect(readPath(value, 'messages[0].content')).toBe('hi');
    expect(readPath(value, 'messages.1.role')).toBe('assistant');
    expect(readPath(value, 'id.length')).toBe(2);
    expect(readPath(value, 'n')).toBe(0);
    expect(readPath(value, 'constructor')).toBeUndefined();
    expect(readPath(value, 'messages.9.role')).toBeUndefined();
    expect(readPath(value, '')).toBe(value);
  });
});

/** A Vu that answers from a script and records what it was asked. */
function scriptedVu(data: Record<string, unknown> = {}): { vu: Vu; calls: unknown[][]; checks: [string, boolean][] } {
  const calls: unknown[][] = [];
  const checks: [string, boolean][] = [];
  const ok = (value: unknown) => Promise.resolve({ ok: true, value } as never);
  const vu = {
    iteration: 7,
    data,
    flowId: 'flow_default',
    scenario: 'steps',
    signal: new AbortController().signal,
    createSession: (body: unknown) => (calls.push(['createSession', body]), ok({ id: 'sess_1', count: 3 })),
    stream: (flow: string, body: unknown) => (calls.push(['stream', flow, body]), ok({ text: 'ok' })),
    getHistory: (id: string) => (calls.push(['getHistory', id]), ok({ messages: [1, 2, 3, 4, 5, 6] })),
    listFlows: () => ok({ flows: [] }),
    getRun: (id: string) => (calls.push(['getRun', id]), Promise.resolve({ ok: false, error: { code: 'NOT_FOUND' } } as never)),
    sleep: (d: unknown) => (calls.push(['sleep', d]), Promise.resolve()),
    check: (name: string, c: boolean) => (checks.push([name, c]), c),
    step: <T>(_name: string, fn: () => Promise<T>) => fn(),
    fail: (m: string) => {
      throw new Error(m);
    },
  } as unknown as Vu;
  return { vu, calls, checks };
}

describe('compileSteps', () => {
  const steps: StepInput[] = [
    { op: 'createSession', body: { user_id: 'user-{{iteration}}', metadata: { n: '{{data.n}}' } }, save: { session: 'id', count: 'count' } },
    { repeat: 2, steps: [{ op: 'stream', input: '{{data.prompt}} #{{count}}', sessionId: '{{session}}' }, { sleep: '2s' }] },
    { op: 'getHistory', sessionId: '{{session}}', check: { 'six messages': { path: 'messages.length', equals: 6 }, 'at most five': { path: 'messages.length', max: 5 } } },
  ];

  it('fills templates (a whole-field template keeps its type), saves values and checks answers', async () => {
    const { journey, issues } = compileSteps(steps);
    expect(issues).toEqual([]);
    const { vu, calls, checks } = scriptedVu({ prompt: 'hello', n: 42 });
    await journey(vu);
    expect(calls).toEqual([
      ['createSession', { flow_id: 'flow_default', user_id: 'user-7', metadata: { n: 42 } }],
      ['stream', 'flow_default', { input: 'hello #3', session_id: 'sess_1' }],
      ['sleep', '2s'],
      ['stream', 'flow_default', { input: 'hello #3', session_id: 'sess_1' }],
      ['sleep', '2s'],
      ['getHistory', 'sess_1'],
    ]);
    expect(checks).toEqual([
      ['six messages', true],
      ['at most five', false],
    ]);
  });

  it('ends the iteration when a step fails or a data column is missing', async () => {
    const failing = compileSteps([{ op: 'getRun', runId: 'run_x', name: 'poll' }]).journey;
    await expect(Promise.resolve(failing(scriptedVu().vu))).rejects.toThrow('poll: NOT_FOUND');
    const missing = compileSteps([{ op: 'stream', input: '{{data.prompt}}' }]).journey;
    await expect(Promise.resolve(missing(scriptedVu({ text: 'x' }).vu))).rejects.toThrow('data has no column "prompt"');
  });
});

describe('checks: templates filled, failures say what they expected and saw', () => {
  /** The scripted Vu, its checks recorded with their detail. */
  function detailedVu(data: Record<string, unknown>) {
    const base = scriptedVu(data).vu;
    const seen: { name: string; passed: boolean; detail?: unknown }[] = [];
    const vu = { ...base, check: (name: string, passed: boolean, detail?: unknown) => (seen.push(detail === undefined ? { name, passed } : { name, passed, detail }), passed) } as Vu;
    return { vu, seen };
  }

  it('fills {{data.x}}, saved values and {{iteration}} in equals, matches and path; a whole-field template keeps its type', async () => {
    const { journey, issues } = compileSteps([
      { op: 'createSession', save: { session: 'id', count: 'count' } },
      {
        op: 'stream',
        input: '{{data.prompt}}',
        check: {
          echoes: { path: 'text', equals: 'echo: {{data.prompt}} #{{iteration}}' },
          'count is kept as a number': { path: 'count', equals: '{{count}}' },
          'regex chars of a value are literal': { path: 'text', matches: '^echo: {{data.prompt}} #\\d+$' },
          'path from a saved value': { path: 'by.{{session}}', equals: '{{data.prompt}}' },
        },
      },
    ]);
    expect(issues).toEqual([]);
    const prompt = 'a+b (c)?';
    const { vu, seen } = detailedVu({ prompt });
    const answered = { ...vu, stream: () => Promise.resolve({ ok: true, value: { text: `echo: ${prompt} #7`, count: 3, by: { sess_1: prompt } } } as never) } as Vu;
    await journey(answered);
    expect(seen).toEqual([
      { name: 'echoes', passed: true },
      { name: 'count is kept as a number', passed: true },
      { name: 'regex chars of a value are literal', passed: true },
      { name: 'path from a saved value', passed: true },
    ]);
  });

  it('a failed check passes what it expected (filled) and what it saw; a failed request says it had no answer', async () => {
    const { journey } = compileSteps([
      {
        op: 'getHistory',
        sessionId: 's',
        check: {
          echoes: { path: 'messages[0].content', equals: 'echo: {{data.prompt}}' },
          'matches and range': { path: 'messages.length', matches: '^{{data.prompt}}$', min: 1, max: 2 },
          missing: { path: 'messages[9].content', equals: 'x' },
        },
      },
    ]);
    const { vu, seen } = detailedVu({ prompt: 'hi' });
    const answered = { ...vu, getHistory: () => Promise.resolve({ ok: true, value: { messages: [{ content: 'echo: ho' }] } } as never) } as Vu;
    await journey(answered);
    expect(seen).toEqual([
      { name: 'echoes', passed: false, detail: { expected: '"echo: hi"', actual: '"echo: ho"' } },
      { name: 'matches and range', passed: false, detail: { expected: 'matches /^(?:hi)$/ and >= 1 and <= 2', actual: '1' } },
      { name: 'missing', passed: false, detail: { expected: '"x"', actual: 'nothing at "messages[9].content"' } },
    ]);

    const failing = compileSteps([{ op: 'getRun', runId: 'run_x', check: { found: { path: 'id', equals: '{{data.prompt}}' } } }]).journey;
    const f = detailedVu({ prompt: 'hi' });
    await expect(Promise.resolve(failing(f.vu))).rejects.toThrow('NOT_FOUND');
    expect(f.seen).toEqual([{ name: 'found', passed: false, detail: { expected: '"hi"', actual: 'no answer: NOT_FOUND' } }]);
  });

  it('refuses a check template that no earlier step saves (its own step saves after it checks)', () => {
    const raw = { ...base, steps: [{ op: 'createSession', save: { session: 'id' }, check: { own: { path: 'id', equals: '{{session}}' } } }] };
    expect(messageAt(raw, 'steps[0]')).toMatch(/^\{\{session\}\} is not saved by an earlier step/);
  });
});
