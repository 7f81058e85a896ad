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
}

/**
 * A sink on one of the process's streams that goes quiet when its reader goes away (`flowgauge
 * run … | head`: EPIPE): the run, its report and its exit code go on without the console.
 */
function streamSink(stream: NodeJS.WriteStream): TextSink {
  let closed = false;
  stream.on('error', () => {
    closed = true;
  });
  return {
    write: (s) => {
      if (!closed) stream.write(s);
    },
  };
}

let sinks: { readonly stdout: TextSink; readonly stderr: TextSink } | undefined;

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
