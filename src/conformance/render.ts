/** `conformance.md`: the verdict, the violations, then what the target did where the interface is silent. */
import { mdCell as cell, mdTable as table } from '../report/markdown-kit.js';
import type { ConformanceReport, Observation } from './model.js';


const MARK: Readonly<Record<Observation['status'], string>> = { observed: '', 'not-observed': ' _(not observed)_', unobservable: ' _(unobservable)_' };

/** Renders the conformance report as Markdown. */
export function renderConformanceMarkdown(r: ConformanceReport): string {
  const out: string[] = [`# flowgauge conformance: ${cell(r.target.baseUrl)}`, ''];
  if (r.interrupted !== undefined) {
    // Stopped before an answer could say anything: never read as unreachable or as a pass.
    out.push('## ⏹️ INTERRUPTED', '', `The battery was stopped after ${r.requests} requests${r.interrupted.cut.length > 0 ? `; not tried: ${r.interrupted.cut.map(cell).join(', ')}` : ''}. What it saw until then follows.`, '');
    if (r.protocol !== undefined || !r.tokenAccepted) return `${out.join('\n')}\n`;
  } else if (!r.reachable) {
    out.push('## ❌ UNREACHABLE', '', 'No response came from the target; nothing could be observed.');
    return `${out.join('\n')}\n`;
  }
  if (r.protocol !== undefined) {
    out.push('## ❌ NOT THE INTERFACE', '', `${cell(r.protocol)}. Nothing else was tried.`);
    return `${out.join('\n')}\n`;
  }
  if (!r.tokenAccepted) {
    out.push('## ❌ TOKEN REFUSED', '', 'The target refused the token on the first request; nothing else was tried.');
    return `${out.join('\n')}\n`;
  }
  const found = `${r.violations.length} violation${r.violations.length === 1 ? '' : 's'}`;
  out.push(
    r.interrupted !== undefined ? `${found} so far.` : r.violations.length === 0 ? '## ✅ No violations' : `## ❌ ${found}`,
    '',
    `${r.requests} requests from ${r.startedAt} to ${r.endedAt}${r.target.embedded ? ' against the embedded reference service' : ''}. ` +
      'Violations break what the interface states; observations record what it leaves unsaid.',
  );
  if (r.deadline !== undefined) {
    out.push('', `**Incomplete:** the deadline of ${r.deadline.ms / 1000} s passed${r.deadline.cut.length > 0 ? `; not tried: ${r.deadline.cut.map(cell).join(', ')}` : ' during the last probe group'}.`);
  }
  if (r.violations.length > 0) {
    out.push(
      '',
      '## Violations',
      '',
      table(
        ['rule', 'where', 'expected', 'got', 'first request', 'count'],
        r.violations.map((v) => [`\`${cell(v.rule)}\``, `\`${cell(v.path)}\``, cell(v.expected), cell(v.got), cell(v.request), String(v.count)]),
      ),
    );
  }
  const topics = [...new Set(r.observations.map((o) => o.topic))];
  out.push('', '## Observations');
  for (const topic of topics) {
    out.push('', `### ${topic[0]?.toUpperCase() ?? ''}${topic.slice(1)}`, '');
    for (const o of r.observations.filter((x) => x.topic === topic)) {
      out.push(`- **${cell(o.question)}**${MARK[o.status]} ${cell(o.answer)} \`${o.id}\``);
    }
  }
  return `${out.join('\n')}\n`;
}
