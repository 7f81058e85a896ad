/**
 * The unit prompt and output lengths are counted in: words (the default: the interface has no
 * tokenizer), or the tokens of a BPE encoding a scenario names (`tokenizer: cl100k_base`). The
 * encodings come from the optional package `gpt-tokenizer`, imported only when a scenario names
 * one, so a run in words loads nothing more.
 */
import { countWords } from '../core/words.js';
import { ConfigError } from '../core/errors.js';

/** What a scenario's `tokenizer` may be. */
export const TOKENIZERS = ['words', 'cl100k_base', 'o200k_base'] as const;
/** One unit of length: `words`, or a BPE encoding's tokens. */
export type TokenizerName = (typeof TOKENIZERS)[number];

/** The optional package the encodings come from. */
export const TOKENIZER_PACKAGE = 'gpt-tokenizer';

/** Counts text in one unit. */
export interface TokenCounter {
  readonly name: TokenizerName;
  /** Length of `text` in this unit. */
  count(text: string): number;
}

const WORDS: TokenCounter = Object.freeze({ name: 'words' as const, count: countWords });

/** What `gpt-tokenizer/encoding/<name>` exports that this uses. */
interface EncodingModule {
  countTokens(text: string): number;
}

/** Imports a module by specifier (injected by tests to stand for a missing package). */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

// A variable specifier: TypeScript does not resolve it, so the package stays optional for builds too.
const importModule: ModuleImporter = (specifier) => import(specifier);
const loaded = new Map<TokenizerName, Promise<TokenCounter>>();

function missing(name: TokenizerName, cause: unknown): ConfigError {
  const why = cause instanceof Error && (cause as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND' ? ` (${cause.message})` : '';
  return new ConfigError(
    [
      {
        path: 'tokenizer',
        message: `${name} needs the optional package ${TOKENIZER_PACKAGE}, which could not be loaded${why}; install it (npm install ${TOKENIZER_PACKAGE}) or use tokenizer: words`,
      },
    ],
    'scenario',
  );
}

/**
 * The counter of `name`: words at once; an encoding imported from `gpt-tokenizer` on first use
 * (once per process). Throws `ConfigError` (exit 2 at the CLI) when the package is missing.
 */
export async function loadTokenCounter(name: TokenizerName = 'words', importer: ModuleImporter = importModule): Promise<TokenCounter> {
  if (name === 'words') return WORDS;
  const cached = importer === importModule ? loaded.get(name) : undefined;
  if (cached !== undefined) return cached;
  const p = importer(`${TOKENIZER_PACKAGE}/encoding/${name}`).then(
    (m) => {
      const mod = m as Partial<EncodingModule> & { default?: Partial<EncodingModule> };
      const countTokens = mod.countTokens ?? mod.default?.countTokens;
      if (typeof countTokens !== 'function') throw missing(name, new Error(`${TOKENIZER_PACKAGE} has no countTokens for ${name}`));
      return Object.freeze({ name, count: (text: string) => countTokens(text) });
    },
    (err: unknown) => {
      throw missing(name, err);
    },
  );
  if (importer === importModule) {
    loaded.set(name, p);
    // A failed import is not cached: the next run may have the package.
    p.catch(() => loaded.delete(name));
  }
  return p;
}
