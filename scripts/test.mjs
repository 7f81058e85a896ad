/**
 * `npm test`: the type-check and the test suite, side by side. tsc takes one core for ~35 s,
 * which the suite (CPU-bound on two cores once its heavy files run) leaves mostly idle while it
 * starts; one after the other, that was ~35 s of every run. tsc's output is shown after the
 * suite's, and either failing fails the command. Arguments go to `vitest run`.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const binOf = (pkg, name) => join(dirname(require.resolve(`${pkg}/package.json`)), require(`${pkg}/package.json`).bin[name]);

/** Runs `node <script> ...args`; resolves with its exit code (1 for a signal) and, when `capture`, its output. */
function run(script, args, capture) {
  const child = spawn(process.execPath, [script, ...args], { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  let out = '';
  if (capture) for (const s of [child.stdout, child.stderr]) s.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, out })));
}

const [tsc, vitest] = await Promise.all([
  run(binOf('typescript', 'tsc'), ['--noEmit', '-p', 'tsconfig.json'], true),
  run(binOf('vitest', 'vitest'), ['run', ...process.argv.slice(2)], false),
]);
if (tsc.code === 0) console.log('\ntsc --noEmit: no errors');
else process.stdout.write(`\ntsc --noEmit failed (exit ${tsc.code}):\n${tsc.out}`);
process.exitCode = tsc.code !== 0 ? tsc.code : vitest.code;
