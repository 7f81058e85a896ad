/**
 * The command list (src/cli/commands/index.ts) names each command without loading it; what it
 * says must be what the command's module says, or `--help` would list one thing and
 * `<command> --help` show another.
 */
import { describe, expect, it } from 'vitest';
import { chosenCommand, commandEntries, commandName } from '../../src/cli/commands/index.js';
import { memoryIo } from '../../src/cli/io.js';

const ctx = { io: memoryIo(), setExit: () => undefined };

describe('the command list', () => {
  it('names every command as its module does', async () => {
    for (const entry of commandEntries) {
      const module = (await entry.load())(ctx);
      expect({ command: module.command, describe: module.describe }).toEqual({ command: entry.command, describe: entry.describe });
    }
  });

  it('finds the command argv names, past options before it, and none for --help, --version or a typo', () => {
    const name = (argv: string[]): string | undefined => {
      const e = chosenCommand(argv);
      return e === undefined ? undefined : commandName(e);
    };
    expect(name(['run', 'smoke'])).toBe('run');
    expect(name(['run', 'report'])).toBe('run');
    expect(name(['--quiet', 'slo', 'rules'])).toBe('slo');
    expect(name(['--help'])).toBeUndefined();
    expect(name(['--version'])).toBeUndefined();
    expect(name(['rnu', 'smoke'])).toBeUndefined();
    expect(name(['--', 'run'])).toBeUndefined();
  });
});
