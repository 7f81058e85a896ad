import type { CliIo } from './io.js';
import { FlowgaugeError } from '../core/errors.js';
import type { ExitCode } from './exit-codes.js';

/** What every command handler gets: the io and a way to set the exit code. */
export interface CommandContext {
  readonly io: CliIo;
  /** Sets the process exit code; the highest-priority code wins (see `main.ts`). */
  setExit(code: ExitCode): void;
}

/**
 * Thrown inside a command handler for a user mistake found after parsing (a missing file, a
 * bad value). `main` prints the message with a pointer to `--help` and exits with the code of
 * `FG_USAGE` (2, `cli/exit-codes.ts`).
 */
export class UsageError extends FlowgaugeError {
  constructor(message: string) {
    super('FG_USAGE', message);
    this.name = 'UsageError';
  }
}
