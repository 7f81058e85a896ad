/**
 * `-e` values in process.env for a command's lifetime, when commands run at once in one process
 * (as tests and programs calling `main` do) and end in any order: each sees its values to its
 * end, and the last to end puts back what was there before the first.
 */
import { describe, expect, it } from 'vitest';
import { withProcessEnv } from '../../src/core/process-env.js';

/** A promise and its resolve, to end a command when the test says. */
function gate(): { readonly wait: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('withProcessEnv', () => {
  it('sets the names for the call and puts back the value before, or none', async () => {
    process.env.FG_PE_KEPT = 'before';
    const seen = await withProcessEnv({ FG_PE_KEPT: 'during', FG_PE_NEW: 'new' }, async () => [process.env.FG_PE_KEPT, process.env.FG_PE_NEW]);
    expect(seen).toEqual(['during', 'new']);
    expect(process.env.FG_PE_KEPT).toBe('before');
    expect('FG_PE_NEW' in process.env).toBe(false);
    delete process.env.FG_PE_KEPT;
  });

  it.each(['first', 'second'] as const)('two calls at once, the %s ending first: each keeps its values to its end, the last restores', async (firstToEnd) => {
    expect('FG_PE_BOTH' in process.env).toBe(false);
    const gates = { first: gate(), second: gate() };
    const seenAtEnd: Record<string, string | undefined> = {};
    const call = (who: 'first' | 'second') =>
      withProcessEnv({ FG_PE_BOTH: 'v' }, async () => {
        await gates[who].wait;
        seenAtEnd[who] = process.env.FG_PE_BOTH;
      });
    const first = call('first');
    const second = call('second');
    const lastToEnd = firstToEnd === 'first' ? 'second' : 'first';
    gates[firstToEnd].open();
    await (firstToEnd === 'first' ? first : second);
    // The other command is still running: its value stays.
    expect(process.env.FG_PE_BOTH).toBe('v');
    gates[lastToEnd].open();
    await Promise.all([first, second]);
    expect(seenAtEnd).toEqual({ first: 'v', second: 'v' });
    expect('FG_PE_BOTH' in process.env).toBe(false);
  });

  it('puts the names back when the call throws', async () => {
    await expect(withProcessEnv({ FG_PE_THROWN: 'x' }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect('FG_PE_THROWN' in process.env).toBe(false);
  });
});
