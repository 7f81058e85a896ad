/**
 * Writing values and comments into the converted scenario file as a person would: TypeScript
 * object literals with bare keys where they can be, single-quoted strings, short objects on
 * one line, and comment lines wrapped near 100 columns. Pure.
 */

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A string as a single-quoted TypeScript literal. */
export function quoted(s: string): string {
  return `'${JSON.stringify(s).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

const key = (k: string): string => (IDENT.test(k) ? k : quoted(k));

/** A plain value (strings, numbers, booleans, arrays and objects of them) as a TypeScript literal at `indent`. */
export function tsLiteral(value: unknown, indent = ''): string {
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) {
    const items = value.map((v) => tsLiteral(v, `${indent}  `));
    const flat = `[${items.join(', ')}]`;
    return flat.length + indent.length <= 100 && !flat.includes('\n') ? flat : `[\n${items.map((i) => `${indent}  ${i},`).join('\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== undefined) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const items = entries.map(([k, v]) => `${key(k)}: ${tsLiteral(v, `${indent}  `)}`);
    const flat = `{ ${items.join(', ')} }`;
    return flat.length + indent.length <= 100 && !flat.includes('\n') ? flat : `{\n${items.map((i) => `${indent}  ${i},`).join('\n')}\n${indent}}`;
  }
  return 'undefined';
}

/** `text` as `//` comment lines at `indent`, wrapped near 100 columns (a continuation indented by two). */
export function commentLines(text: string, indent: string): string[] {
  const width = Math.max(40, 100 - indent.length - 3);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => `${indent}// ${l}`);
}

/** A "not converted" note as comment lines. */
export const notConvertedLines = (note: string, indent: string): string[] => commentLines(`flowgauge: not converted: ${note}`, indent);
