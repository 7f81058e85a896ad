/**
 * The tokenizer a scenario names: loaded only when named, a clear configuration error when its
 * optional package is missing, and synthetic prompts of exactly the tokens asked for, counted by
 * the package itself.
 */
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { bandLabel, defaultPromptBands } from '../../src/collect/index.js';
import { ConfigError } from '../../src/core/errors.js';
import { createTokenPromptSource, loadTokenCounter, resolveScenario } from '../../src/scenario/index.js';

const base = { name: 't', tier: 'pro', load: { rate: '1/s', duration: '1s' }, steps: [{ op: 'stream', input: '{{data.prompt}}' }] };

describe('tokenizers', () => {
  it('a missing gpt-tokenizer is a configuration error naming the package and the way out', async () => {
    const gone = (): Promise<never> => Promise.reject(Object.assign(new Error("Cannot find package 'gpt-tokenizer'"), { code: 'ERR_MODULE_NOT_FOUND' }));
    const err = await loadTokenCounter('cl100k_base', gone).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('FG_CONFIG_INVALID');
    expect((err as ConfigError).issues).toEqual([
      { path: 'tokenizer', message: 'cl100k_base needs the optional package gpt-tokenizer, which could not be loaded; install it (npm install gpt-tokenizer) or use tokenizer: words' },
    ]);
    // Words need no package: the importer is never called.
    expect((await loadTokenCounter('words', gone)).count('one two  three')).toBe(3);
  });

  it('counts as the package counts', async () => {
    const text = 'The flow processed your request, and found 3 key points.';
    expect((await loadTokenCounter('cl100k_base')).count(text)).toBe(cl100k(text));
    expect((await loadTokenCounter('o200k_base')).count(text)).toBe(o200k(text));
  });

  it.each([
    ['cl100k_base', cl100k],
    ['o200k_base', o200k],
  ] as const)('synthetic prompts of %s have exactly promptTokens tokens, each length of a sweep in turn', async (name, count) => {
    const lengths = [1, 2, 7, 64, 255, 1000, 4097];
    const s = resolveScenario({ ...base, data: { synthetic: { promptTokens: lengths, tokenizer: name } } });
    expect(s.tokenizer).toBe(name);
    expect(s.promptBands).toEqual(defaultPromptBands(name));
    if (s.data?.kind !== 'synthetic-tokens') throw new Error('not synthetic tokens');
    const rows = createTokenPromptSource(s.data, await loadTokenCounter(name), 42);
    for (let i = 0; i < 3 * lengths.length; i++) {
      const row = rows.row(i);
      expect(count(String(row?.prompt))).toBe(lengths[i % lengths.length]);
      expect(row?.promptTokens).toBe(lengths[i % lengths.length]);
    }
  });

  it("GuideLLM's string form, the output length in the variable the user names, and bands from 0", () => {
    const s = resolveScenario({ ...base, promptBands: [128, 512], data: { synthetic: 'prompt_tokens=256,output_tokens=128,outputTokensVar=max_tokens' } });
    expect(s.data).toEqual({ kind: 'synthetic-tokens', promptTokens: [256], tokenizer: 'words', output: { tokens: 128, variable: 'max_tokens' } });
    expect(s.promptBands).toEqual([0, 128, 512]);
    const rows = createTokenPromptSource(s.data as Extract<typeof s.data, { kind: 'synthetic-tokens' }>, { name: 'words', count: (t) => t.split(' ').length }, 1);
    expect(rows.row(0)).toMatchObject({ promptTokens: 256, outputTokens: 128, variables: { max_tokens: 128 } });
    expect(() => resolveScenario({ ...base, promptBands: [0, 512, 128] })).toThrow(/promptBands: must be in ascending order/);
    expect(() => resolveScenario({ ...base, tokenizer: 'o200k_base', data: { synthetic: { promptTokens: 8, tokenizer: 'cl100k_base' } } })).toThrow(
      /data\.synthetic\.tokenizer: is cl100k_base but the scenario's tokenizer is o200k_base/,
    );
    // A scenario that chooses nothing stays as it was: words and their bands by default.
    expect(resolveScenario(base)).not.toHaveProperty('tokenizer');
  });

  it('band labels: lower bounds, a band one wide by its number, the last open', () => {
    expect([0, 63, 64, 511, 512, 10_000].map((n) => bandLabel([0, 64, 512], n))).toEqual(['0-63', '0-63', '64-511', '64-511', '512+', '512+']);
    expect([0, 1, 16, 17, 1025].map((n) => bandLabel(defaultPromptBands('words'), n))).toEqual(['0', '1-16', '1-16', '17-64', '1025+']);
  });
});
