/**
 * Where a journey's error was thrown, as `file:line:column`: from the error's stack, the first
 * frame in the scenario's own file (or, when none is, the first frame of the user's code: not
 * Node's, not a dependency's, not flowgauge's). A frame of a module tsx compiled is mapped back
 * to the `.ts` line through its source map, whether or not Node mapped the stack itself.
 */
import { findSourceMap } from 'node:module';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../core/package-root.js';

/** One stack frame's place: the file as the stack names it (a URL or a path), 1-based line and column. */
interface Frame {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** `    at fn (file:line:col)` or `    at file:line:col`. */
const FRAME = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?\s*$/;

/** This package's root (`src/run/` in a checkout, `dist/run/` in a package: two levels up). */
const OWN_ROOT = fileURLToPath(PACKAGE_ROOT);
const OWN_CODE = [resolve(OWN_ROOT, 'src') + sep, resolve(OWN_ROOT, 'dist') + sep];

function frames(stack: string): Frame[] {
  const out: Frame[] = [];
  for (const line of stack.split('\n')) {
    const m = FRAME.exec(line);
    if (m !== null) out.push({ file: m[1] as string, line: Number(m[2]), column: Number(m[3]) });
  }
  return out;
}

/** A frame's file as an absolute path, or undefined when it is not a file (`node:…`, `data:…`, `<anonymous>`). */
function pathOf(file: string): string | undefined {
  if (file.startsWith('file://')) {
    try {
      return fileURLToPath(file.replace(/[?#].*$/, ''));
    } catch {
      return undefined;
    }
  }
  return isAbsolute(file) ? file : undefined;
}

/** The frame mapped through the source map of its module, when its module has one (tsx's, unmapped by Node). */
function mapped(f: Frame): Frame {
  let map: ReturnType<typeof findSourceMap>;
  try {
    map = findSourceMap(f.file);
  } catch {
    return f;
  }
  if (map === undefined) return f;
  const e = map.findEntry(f.line - 1, f.column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
  if (e.originalSource === undefined || e.originalLine === undefined || e.originalColumn === undefined) return f;
  return { file: e.originalSource, line: e.originalLine + 1, column: e.originalColumn + 1 };
}

const isUserCode = (path: string): boolean => !path.includes(`${sep}node_modules${sep}`) && !OWN_CODE.some((dir) => path.startsWith(dir));

/** How a path is shown: relative to the working directory when it lies under it. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/**
 * `file:line:column` of where `err` was thrown in the user's code, or undefined (no stack, or
 * no frame of the user's). `source` is the scenario file, preferred over any other.
 */
export function errorLocation(err: unknown, source: string | undefined, cwd: string = process.cwd()): string | undefined {
  let stack: unknown;
  try {
    stack = (err as { stack?: unknown } | null)?.stack;
  } catch {
    return undefined;
  }
  if (typeof stack !== 'string') return undefined;
  const scenarioFile = source === undefined ? undefined : resolve(cwd, source);
  let first: { path: string; f: Frame } | undefined;
  for (const raw of frames(stack)) {
    const f = mapped(raw);
    const path = pathOf(f.file);
    if (path === undefined || !isUserCode(path)) continue;
    if (path === scenarioFile) return `${shown(path, cwd)}:${f.line}:${f.column}`;
    first ??= { path, f };
  }
  return first === undefined ? undefined : `${shown(first.path, cwd)}:${first.f.line}:${first.f.column}`;
}
