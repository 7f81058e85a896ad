/**
 * Finds a scenario file: a path as given, or the name of a ready scenario shipped in
 * `scenarios/` (`flowgauge run mixed-pro`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's ready scenarios directory. */
export const BUILTIN_SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/** Names of the ready scenarios. */
export function builtinScenarioNames(): string[] {
  try {
    return readdirSync(BUILTIN_SCENARIOS_DIR)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

/** Resolves `arg` to an existing file path, or undefined. */
export function findScenarioFile(cwd: string, arg: string): string | undefined {
  const direct = resolve(cwd, arg);
  if (existsSync(direct)) return direct;
  if (/^[a-z0-9-]+$/.test(arg)) {
    const builtin = resolve(BUILTIN_SCENARIOS_DIR, `${arg}.ts`);
    if (existsSync(builtin)) return builtin;
  }
  return undefined;
}
