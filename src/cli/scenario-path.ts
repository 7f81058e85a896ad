/**
 * Finds a scenario file: a path as given, or the name of a ready scenario shipped in
 * `scenarios/` (`flowgauge run mixed-pro`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageFile } from '../core/package-root.js';

/** The package's ready scenarios directory. */
export const BUILTIN_SCENARIOS_DIR = fileURLToPath(packageFile('scenarios/'));

/** Names of the ready scenarios. */
export function builtinScenarioNames(): string[] {
  try {
    return readdirSync(BUILTIN_SCENARIOS_DIR)
      .map((f) => /^([a-z0-9-]+)\.(ts|yaml|yml|json)$/.exec(f)?.[1])
      .filter((n): n is string => n !== undefined)
      .sort();
  } catch {
    return [];
  }
}

/** Kinds a ready scenario may be written in, in the order a name is looked up. */
const BUILTIN_EXTENSIONS = ['.ts', '.yaml', '.yml', '.json'];

/** Resolves `arg` to an existing file path, or undefined. */
export function findScenarioFile(cwd: string, arg: string): string | undefined {
  const direct = resolve(cwd, arg);
  if (existsSync(direct)) return direct;
  if (/^[a-z0-9-]+$/.test(arg)) {
    for (const ext of BUILTIN_EXTENSIONS) {
      const builtin = resolve(BUILTIN_SCENARIOS_DIR, `${arg}${ext}`);
      if (existsSync(builtin)) return builtin;
    }
  }
  return undefined;
}
