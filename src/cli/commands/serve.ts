/**
 * `flowgauge serve`: the embedded reference service on its own, for trying the interface by
 * hand, pointing other tools at it, or a second terminal's `flowgauge run --base-url`.
 */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DURATION_HELP, parseDurationMs } from '../../core/units.js';
import { parseReferenceConfig, startReferenceService, type ReferenceServiceOptions } from '../../target/index.js';
import { UsageError } from '../context.js';
import { listenForStop } from '../signals.js';
import type { MakeCommand } from './command.js';

async function readConfig(cwd: string, file: string): Promise<ReferenceServiceOptions> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError(`--config "${file}" cannot be read (looked at ${path})`);
  }
  let raw: unknown;
  try {
    raw = ['.yaml', '.yml'].includes(extname(path)) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config "${file}" is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML/JSON'}: ${(err as Error).message}`);
  }
  return parseReferenceConfig(raw);
}

/** The `serve` command. */
export const serveCommand: MakeCommand = (ctx) => ({
  command: 'serve',
  describe: 'run the embedded reference service (see docs/reference-service.md)',
  builder: (y) =>
    y.options({
      port: { type: 'number', default: 4000, describe: 'port on 127.0.0.1 (0 picks a free one)' },
      host: { type: 'string', default: '127.0.0.1', describe: 'address to listen on' },
      config: { type: 'string', describe: 'a JSON or YAML file of service options (tokens, latency, faults, …)' },
      duration: { type: 'string', describe: 'stop after this long (default: until Ctrl-C)' },
    }),
  handler: async (argv) => {
    const args = argv as unknown as { port: number; host: string; config?: string; duration?: string };
    const { io } = ctx;
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
      throw new UsageError(`--port must be a whole number from 0 to 65535, got ${args.port}`);
    }
    const durationMs = args.duration === undefined ? undefined : parseDurationMs(args.duration);
    if (durationMs === 0 || (args.duration !== undefined && durationMs === undefined)) {
      throw new UsageError(`--duration "${args.duration}" is not ${DURATION_HELP}`);
    }
    const fromFile = args.config === undefined ? {} : await readConfig(io.cwd, args.config);
    const service = await startReferenceService({ ...fromFile, port: args.port, host: args.host });
    // A signal is the service's ordinary end (SIGHUP too: the terminal it ran in closed); it exits 0.
    // Listened for before "Ctrl-C to stop." is said: a signal sent on reading it must find the listener.
    const stop = listenForStop(io.stderr, 'stopping the reference service');
    io.stdout.write(
      [
        `reference service listening`,
        `  base URL      ${service.baseUrl}`,
        `  trigger host  ${service.webhookHost}   (POST /api/v1/webhook/{flow_id})`,
        // These are the local service's own demo credentials, not a user's secret: printing
        // them is what makes the service usable by hand.
        `  tokens        free ${service.tokens.free}  pro ${service.tokens.pro}  enterprise ${service.tokens.enterprise}`,
        `  admin         PUT ${service.webhookHost}/admin/faults with bearer ${service.adminToken}`,
        `Ctrl-C to stop.`,
        '',
      ].join('\n'),
    );
    try {
      await new Promise<void>((done) => {
        stop.signal.addEventListener('abort', () => done(), { once: true });
        if (durationMs !== undefined) setTimeout(done, durationMs).unref();
      });
    } finally {
      stop.dispose();
    }
    await service.close();
    io.stdout.write('reference service stopped\n');
  },
});
