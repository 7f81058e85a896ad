/** The views of `warnings`: what the generator warns of (data exhausted, drops, a schedule behind). */
import { esc, section } from '../html-parts.js';
import { mdPlain as plain } from '../markdown-kit.js';
import type { Report } from '../model.js';
import type { SectionViews } from './view-kit.js';

/** The views of `warnings`. */
export const warningsViews: SectionViews = {
  summary: { warnings: (r) => (r.warnings ?? []).map((w) => `WARNING ${w.code}: ${w.message}`) },
  markdown: {
    warnings: (r: Report) => (r.warnings === undefined || r.warnings.length === 0 ? [] : ['## Warnings', '', ...r.warnings.map((w) => `- **${plain(w.code)}**: ${plain(w.message)}`)]),
  },
  html: {
    warnings: (r) =>
      r.warnings === undefined || r.warnings.length === 0 ? '' : section('warnings', 'Warnings', [`<ul>${r.warnings.map((w) => `<li><b>${esc(w.code)}</b>: ${esc(w.message)}</li>`).join('')}</ul>`]),
  },
};
