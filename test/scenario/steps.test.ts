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
