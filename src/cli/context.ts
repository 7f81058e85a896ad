import type { CliIo } from './io.js';
import type { ExitCode } from './exit-codes.js';

/** What every command handler gets: the io and a way to set the exit code. */
export interface CommandContext {
  readonly io: CliIo;
  /** Sets the process exit code; the highest-priority code wins (see `main.ts`). */
  setExit(code: ExitCode): void;
}

/**
 * Thrown inside a command handler for a user mistake found after parsing (a missing file, a
 * bad value). `main` prints the message and exits with `code` (2 unless said otherwise).
 */
export class UsageError extends Error {
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode = 2) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = exitCode;
  }
}
