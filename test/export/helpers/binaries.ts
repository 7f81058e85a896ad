/**
 * Gates for tests that need a real Prometheus binary. Missing binaries skip the tests loudly
 * on a developer machine, and fail them on CI (CI=true), where they must be installed.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Absolute path of `name` on PATH, or undefined. */
export function findBinary(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether to skip, and the message to fail with when the binaries are missing on CI. */
export interface BinaryGate {
  readonly skip: boolean;
  readonly missing: readonly string[];
  readonly message: string;
  /** Throws the message when a binary is missing (call in beforeAll: on CI this fails the suite). */
  assertPresent(): void;
}

/** Checks for `names`; warns when any is missing. */
export function binaryGate(names: readonly string[]): BinaryGate {
  const missing = names.filter((n) => findBinary(n) === undefined);
  const ci = process.env.CI === 'true';
  const message =
    missing.length === 0
      ? ''
      : `${missing.join(' and ')} not found on PATH: the real-Prometheus tests need it. ` +
        `Install it with \`apt-get install prometheus\` (Debian/Ubuntu; it provides prometheus and promtool).`;
  if (missing.length > 0) {
    console.warn(`\n[flowgauge tests] ${ci ? 'FAILING' : 'SKIPPING'}: ${message}\n`);
  }
  return {
    skip: missing.length > 0 && !ci,
    missing,
    message,
    assertPresent() {
      if (missing.length > 0) throw new Error(message);
    },
  };
}
