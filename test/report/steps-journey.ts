/** A steps scenario that exercises every journey section of a report: saved values, a stream in a session, a check. */
export function stepsJourneyYaml(name: string, duration: string): string {
  return [
    `name: ${name}`,
    'tier: pro',
    `load: { rate: 10/s, duration: ${duration} }`,
    'steps:',
    '  - op: createSession',
    '    name: open',
    '    save: { session: id }',
    '  - op: stream',
    '    input: hello there',
    '    sessionId: "{{session}}"',
    '  - op: getHistory',
    '    sessionId: "{{session}}"',
    '    check:',
    '      has messages: { path: messages.length, min: 1 }',
    '',
  ].join('\n');
}
