/**
 * The compiler options of a user's strict TypeScript project, as the tests that type-check what
 * flowgauge writes for users (`flowgauge new`, the k6 converter's shims) hold it to: strict with
 * `noUncheckedIndexedAccess`, Node's module resolution, Node's types, and `flowgauge` resolved to
 * the module `flowgauge` names here (the sources, not an installed package).
 */
import { join } from 'node:path';
import ts from 'typescript';

/** Options for `ts.createProgram`; `extra` adds to or overrides them. */
export function strictUserOptions(flowgauge: string, extra: ts.CompilerOptions = {}): ts.CompilerOptions {
  return {
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    typeRoots: [join(process.cwd(), 'node_modules', '@types')],
    paths: { flowgauge: [flowgauge] },
    ...extra,
  };
}
