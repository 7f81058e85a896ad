/**
 * What a report, a span, a warning or the process title may show of an address: no
 * credentials, no query or fragment (where tokens get pasted). One rule for every output.
 */

/**
 * A URL with no credentials, query or fragment (where tokens get pasted), or undefined when it
 * does not parse: what a report, a span or a warning may show of an address.
 */
export function urlWithoutSecrets(url: string): URL | undefined {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u;
  } catch {
    return undefined;
  }
}

/**
 * Removes credentials and the query string from a URL (a token pasted into a URL must not
 * reach a report). Unparseable input is cut at the first `?` and stripped of `user:pass@`.
 */
export function redactUrl(url: string): string {
  const u = urlWithoutSecrets(url);
  if (u === undefined) return (url.split(/[?#]/)[0] ?? '').replace(/\/\/[^/@]*@/, '//');
  const out = u.toString();
  // URL adds a `/` to a bare origin; keep the user's spelling.
  const path = url.split(/[?#]/)[0] ?? '';
  return !path.endsWith('/') && out.endsWith('/') ? out.slice(0, -1) : out;
}
