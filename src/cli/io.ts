/**
 * The CLI's window on the process. Commands write through this instead of touching
 * `process.stdout` directly, so tests run them in-process and read what they printed.
 */

/** Something that takes text. */
export interface TextSink {
  write(text: string): void;
}

/** What a command may use of its process. */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** True when stdout is an interactive terminal (live progress redraws in place). */
  readonly isTTY: boolean;
  /** Terminal width for tables and progress; 100 when unknown. */
  readonly columns: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** The process's standard input (`--token -` reads the token there); absent: none. */
  readonly stdin?: AsyncIterable<Buffer | string> | undefined;
  /**
   * Why writing to stdout failed, once it did (a full disk or /dev/full behind `>`: `ENOSPC`); a
   * reader that went away (`| head`: `EPIPE`) is not a failure. Absent: stdout cannot fail.
   */
  stdoutFailure?(): string | undefined;
  /**
   * `performance.now()` when the command's time began, for deadlines that bound the whole
   * command (`conformance --deadline`): 0, the process's start, for the real process; absent
   * (the handler's start) in tests.
   */
  readonly startedMs?: number;
}

/** A sink on a stream of the process, and the error that closed it, if one did. */
interface StreamSink extends TextSink {
  failure(): NodeJS.ErrnoException | undefined;
}

/**
 * A sink on one of the process's streams that goes quiet when its reader goes away (`flowgauge
 * run … | head`: EPIPE) or it cannot be written (a full disk): the run, its report and its exit
 * code go on without the console; the error is kept, so a command whose output is stdout fails.
 */
function streamSink(stream: NodeJS.WriteStream): StreamSink {
  let failed: NodeJS.ErrnoException | undefined;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    failed ??= err;
  });
  return {
    write: (s) => {
      if (failed === undefined) stream.write(s);
    },
    failure: () => failed,
  };
}

let sinks: { readonly stdout: StreamSink; readonly stderr: StreamSink } | undefined;

/** The real process. */
export function processIo(): CliIo {
  // One listener per stream, however many times the CLI is entered in a process.
  sinks ??= { stdout: streamSink(process.stdout), stderr: streamSink(process.stderr) };
  return {
    stdout: sinks.stdout,
    stderr: sinks.stderr,
    isTTY: process.stdout.isTTY === true,
    columns: process.stdout.columns ?? 100,
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
    startedMs: 0,
    stdoutFailure() {
      const err = sinks?.stdout.failure();
      return err === undefined || err.code === 'EPIPE' ? undefined : `${err.code ?? err.message}`;
    },
  };
}

/** An in-memory io for tests: read `out()` and `err()` afterwards. */
export function memoryIo(options: { env?: Record<string, string | undefined>; cwd?: string; isTTY?: boolean; stdin?: string } = {}): CliIo & {
  out(): string;
  err(): string;
} {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s) => void (out += s) },
    stderr: { write: (s) => void (err += s) },
    isTTY: options.isTTY ?? false,
    columns: 100,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    stdin: options.stdin === undefined ? undefined : (async function* () {
      yield options.stdin as string;
    })(),
    out: () => out,
    err: () => err,
  };
}
