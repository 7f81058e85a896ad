/**
 * `flowgauge --help` is written from the command list without yargs (src/cli/top-help.ts); it
 * must say exactly what yargs says for the same list. `--help --help` still goes through yargs,
 * which is the independent truth here.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryIo } from '../../src/cli/io.js';

async function helpOf(argv: string[], columns: number): Promise<{ out: string; err: string; code: number }> {
  const io = memoryIo();
  const code = await main(argv, { ...io, columns });
  return { out: io.out(), err: io.err(), code };
}

describe('the top-level help', () => {
  it.each([60, 80, 84, 100, 110, 200])('is what yargs writes, at %i columns', async (columns) => {
    const fast = await helpOf(['--help'], columns);
    const yargs = await helpOf(['--help', '--help'], columns);
    expect(fast.out).toContain('flowgauge capacity <op>');
    expect(fast.out).toContain('70 internal error');
    expect(fast).toEqual(yargs);
    expect(await helpOf(['-h'], columns)).toEqual(yargs);
  });

  it('is what a bare flowgauge prints on stderr, before naming what is missing, with exit 2', async () => {
    const bare = await helpOf([], 100);
    const help = await helpOf(['--help'], 100);
    expect(bare.code).toBe(2);
    expect(bare.out).toBe('');
    expect(bare.err).toBe(`${help.out}\nflowgauge: name a command (see the list above)\nRun 'flowgauge --help' for usage.\n`);
  });
});
