/**
 * What `--ca` must hold: PEM certificates. A private key, a CSR or any other file given by
 * mistake was taken silently, and every TLS handshake then met a trust store that trusted
 * nothing new; it is refused at start instead, saying what the file holds.
 */
import { X509Certificate } from 'node:crypto';

/** The PEM blocks of `text`, by their label (`CERTIFICATE`, `PRIVATE KEY`, …), in one pass over its lines. */
function pemBlocks(text: string): { readonly label: string; readonly pem: string }[] {
  const out: { label: string; pem: string }[] = [];
  let open: { label: string; lines: string[] } | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const begin = /^-----BEGIN ([A-Z0-9 ]{1,64})-----$/.exec(line);
    if (begin !== null) {
      open = { label: begin[1] as string, lines: [line] };
      continue;
    }
    if (open === undefined) continue;
    open.lines.push(line);
    if (line === `-----END ${open.label}-----`) {
      out.push({ label: open.label, pem: `${open.lines.join('\n')}\n` });
      open = undefined;
    }
  }
  return out;
}

/** Why `text` is not a CA bundle: undefined when it holds a certificate and every certificate in it parses. */
export function caBundleProblem(text: string): string | undefined {
  const blocks = pemBlocks(text);
  const certs = blocks.filter((b) => b.label === 'CERTIFICATE');
  if (certs.length === 0) {
    const others = [...new Set(blocks.map((b) => b.label.toLowerCase()))];
    const holds = others.length > 0 ? `it holds ${others.map((o) => `a ${o}`).join(' and ')}` : 'it holds no PEM block';
    return `not a certificate: ${holds}; give the PEM file of the CA certificate(s) (-----BEGIN CERTIFICATE-----)`;
  }
  for (const [i, b] of certs.entries()) {
    try {
      new X509Certificate(b.pem);
    } catch (err) {
      return `not a certificate: its certificate ${certs.length === 1 ? '' : `${i + 1} of ${certs.length} `}does not parse (${err instanceof Error ? err.message : String(err)})`;
    }
  }
  return undefined;
}
