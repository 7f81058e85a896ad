import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real-part tests (Prometheus, Chromium, spawned CLIs) start processes; give them room on a
    // busy machine (these only guard hangs, never time anything) without letting a hung one
    // stall CI for long.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Compiles src/ once for the CLIs tests spawn (test/setup/compiled-cli.ts).
    globalSetup: ['test/setup/compiled-cli.ts'],
    // ...and starts the threads of in-process runs from it too (pre-flight, embedded service, workers).
    setupFiles: ['test/setup/threads-from-dist-everywhere.ts'],
    pool: 'forks',
    // Vitest's default is one worker less than the cores: on CI's two cores, one file at a time.
    // Most files wait on child processes and sockets, so two at once nearly halve the wall time.
    maxWorkers: 2,
    // Each test file in a fresh process cost ~1.25 s of CPU (a fork, vitest's runtime and the
    // sources imported again): the whole suite took 968 s of CPU so and 757 s without, on 2 cores.
    // Files share their worker's process and module cache instead. So a test file restores what it changes
    // in the process (env, listeners, globals). The client tests on undici keep their own processes.
    isolate: false,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      // The client tests again on undici (https targets use it), so both transports meet one contract.
      {
        extends: true,
        test: {
          name: 'api-undici',
          include: ['test/api/{client-errors,client-ops,contract,stream,redaction,body-memo,phases-deadlines}.test.ts'],
          env: { FG_TEST_TRANSPORT: 'undici' },
          // Its own processes: its transport choice must not reach another project's files.
          isolate: true,
        },
      },
    ],
  },
});
