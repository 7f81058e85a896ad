import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, FlowgaugeError } from '../../src/core/errors.js';
import { countWords } from '../../src/collect/index.js';
import { createRowSource, createSyntheticSource, loadRowSource, readDataFile, resolveScenario } from '../../src/scenario/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

async function issueOf(p: Promise<unknown>): Promise<{ path: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).issues[0] as { path: string; message: string };
}

describe('data files', () => {
  it('reads .jsonl line by line, skipping blank lines, rows frozen', async () => {
    const rows = await readDataFile(file('p.jsonl', '{"prompt":"a"}\n\n{"prompt":"b","n":2}\r\n'));
    expect(rows).toEqual([{ prompt: 'a' }, { prompt: 'b', n: 2 }]);
    expect(Object.isFrozen(rows[0])).toBe(true);
  });

  it('names the file and line of a malformed JSON line or a row that is not an object', async () => {
    const bad = file('bad.jsonl', '{"prompt":"a"}\n{"prompt":"b"}\n{"prompt": oops}\n');
    expect(await issueOf(readDataFile(bad))).toMatchObject({ path: `${bad}:3`, message: expect.stringMatching(/^invalid JSON/) });
    const arr = file('arr.jsonl', '{"prompt":"a"}\n["x"]\n');
    expect(await issueOf(readDataFile(arr))).toEqual({ path: `${arr}:2`, message: 'each line must be a JSON object such as {"prompt": "…"}' });
  });

  it('a row nested deeper than 64 levels is refused naming its line, before it is parsed or walked', async () => {
    const nest = (n: number): string => `{"a":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
    // 64 levels (the row object and 63 arrays) is the most a row may have.
    expect(await readDataFile(file('ok-deep.jsonl', `${nest(64)}\n`))).toHaveLength(1);
    const deep = file('deep.jsonl', `{"prompt":"a"}\n\n${nest(65)}\n`);
    expect(await issueOf(readDataFile(deep))).toEqual({ path: `${deep}:3`, message: 'a row is nested deeper than 64 levels of arrays and objects; the limit is 64' });
    // Three million levels: refused from the text, never a stack overflow in a walk of the row.
    const bomb = file('bomb.json', `[{"prompt":"a"},\n${nest(3_000_000)}]`);
    expect(await issueOf(readDataFile(bomb))).toMatchObject({ path: `${bomb}:2`, message: expect.stringContaining('the limit is 64') });
    expect(await readDataFile(file('ok-deep.json', `[${nest(64)}]`))).toHaveLength(1);
  });

  it('reads a .json array and names the entry that is not an object', async () => {
    expect(await readDataFile(file('a.json', '[{"prompt":"x"},{"prompt":"y"}]'))).toHaveLength(2);
    const bad = file('b.json', '[{"prompt":"x"}, 3]');
    expect(await issueOf(readDataFile(bad))).toMatchObject({ path: `${bad}[1]` });
    const notArray = file('c.json', '{"prompt":"x"}');
    expect((await issueOf(readDataFile(notArray))).message).toBe('must be a JSON array of objects');
  });

  it('reads .csv with a header, a BOM, quoted commas and CRLF; names the line of a broken quote', async () => {
    const rows = await readDataFile(file('p.csv', '\uFEFFprompt,lang\r\n"hello, world",en\r\n"say ""hi""",fr\r\n'));
    expect(rows).toEqual([
      { prompt: 'hello, world', lang: 'en' },
      { prompt: 'say "hi"', lang: 'fr' },
    ]);
    const bad = file('bad.csv', 'prompt,lang\nok,en\nshort\n');
    const issue = await issueOf(readDataFile(bad));
    expect(issue.path).toBe(`${bad}:3`);
    expect(issue.message).toMatch(/^invalid CSV/);
  });

  it('refuses an empty file, an unknown extension and a missing file', async () => {
    expect((await issueOf(readDataFile(file('e.jsonl', '\n\n')))).message).toBe('has no rows');
    expect((await issueOf(readDataFile(file('x.txt', 'a')))).message).toMatch(/unsupported data file type ".txt"; use one of .jsonl, .ndjson, .json, .csv/);
    await expect(readDataFile(join(dir, 'nope.csv'))).rejects.toSatisfy((e: unknown) => e instanceof FlowgaugeError && e.code === 'FG_FILE_NOT_FOUND');
  });

  it('resolves a data file relative to the scenario file that names it', async () => {
    file('rel.jsonl', '{"prompt":"r"}\n');
    const s = resolveScenario(
      { name: 'd', tier: 'pro', load: { rate: '1/s', duration: '1s' }, journey: () => {}, data: { file: 'rel.jsonl', order: 'unique' } },
      {},
      { source: join(dir, 'scenario.yaml') },
    );
    expect(s.data).toEqual({ kind: 'file', path: join(dir, 'rel.jsonl'), order: 'unique' });
    const source = await loadRowSource(s.data as NonNullable<typeof s.data>, 1);
    expect(source.row(0)).toEqual({ prompt: 'r' });
    expect(source.row(1)).toBeUndefined();
  });
});

describe('row orders', () => {
  const rows = ['a', 'b', 'c'].map((p) => ({ p }));
  it('sequential wraps, unique runs out, random depends only on seed and iteration', () => {
    const seq = createRowSource(rows, 'sequential', 1);
    expect([0, 1, 2, 3, 4].map((i) => seq.row(i)?.p)).toEqual(['a', 'b', 'c', 'a', 'b']);
    const uniq = createRowSource(rows, 'unique', 1);
    expect([0, 1, 2, 3].map((i) => uniq.row(i)?.p)).toEqual(['a', 'b', 'c', undefined]);
    const r1 = createRowSource(rows, 'random', 7);
    const r2 = createRowSource(rows, 'random', 7);
    const picks = Array.from({ length: 300 }, (_, i) => r1.row(i)?.p);
    expect(Array.from({ length: 300 }, (_, i) => r2.row(i)?.p)).toEqual(picks);
    for (const p of ['a', 'b', 'c']) expect(picks.filter((x) => x === p).length).toBeGreaterThan(60);
    const other = Array.from({ length: 300 }, (_, i) => createRowSource(rows, 'random', 8).row(i)?.p);
    expect(other).not.toEqual(picks);
  });
});

describe('synthetic prompts', () => {
  it('are reproducible, clamped to [min, max], with the asked mean, and count the words they claim', () => {
    const words = { mean: 200, sd: 80, min: 20, max: 400 };
    const a = createSyntheticSource(words, 3);
    const b = createSyntheticSource(words, 3);
    const lengths: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const row = a.row(i) as { prompt: string; words: number };
      expect(b.row(i)).toEqual(row);
      expect(countWords(row.prompt)).toBe(row.words);
      lengths.push(row.words);
    }
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(400);
    const mean = lengths.reduce((x, y) => x + y, 0) / lengths.length;
    expect(Math.abs(mean - 200)).toBeLessThan(8);
    expect(createSyntheticSource(words, 4).row(0)).not.toEqual(a.row(0));
  });

  it('are refused with a clear message when their bounds make no sense', () => {
    try {
      resolveScenario({ name: 'd', tier: 'pro', load: { rate: '1/s', duration: '1s' }, journey: () => {}, data: { synthetic: { words: { mean: 10, min: 50, max: 20 } } } });
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).issues).toContainEqual({ path: 'data.synthetic.words.min', message: 'min must not exceed max' });
    }
  });
});
