/** Paths into a JSON value and one-place edits of it: how the validator tests break valid bodies. */

/** A path of keys and indexes from the root. */
export type Path = (string | number)[];

/** The marker that deletes the key at a path instead of replacing its value. */
export const DELETE = Symbol('delete');

/** Every path in `v`, the root first. */
export function paths(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (typeof v === 'object' && v !== null) for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...prefix, k], out);
  return out;
}

/** A copy of `root` with the value at `path` replaced, or deleted when `replacement` is `DELETE`. */
export function mutate(root: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement === DELETE ? undefined : replacement;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const key of path.slice(0, -1)) cur = cur[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (replacement === DELETE) delete cur[last];
  else cur[last] = replacement;
  return copy;
}
