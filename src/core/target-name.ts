/**
 * The name of a target (`--target-name`): the label that keeps the series, records and status
 * sections of staging apart from production's in one Prometheus, one Pushgateway, one history.
 * A label value must stay bounded and must never carry what a URL can (paths, queries,
 * credentials), so it is a short host-like name, by default the host of the base URL.
 */

/** Longest target name. */
export const MAX_TARGET_NAME = 100;

/** What a target name may be made of: letters, digits, `.`, `_`, `-` and `:` (a host and port). */
const TARGET_NAME_RE = /^[A-Za-z0-9:](?:[A-Za-z0-9._:-]*[A-Za-z0-9])?$/;

/** The name of the embedded reference service. */
export const EMBEDDED_TARGET_NAME = 'reference-service';

/** Describes what a target name may be, for messages. */
export const TARGET_NAME_HELP = `a name of letters, digits, '.', '_', '-' and ':' (at most ${MAX_TARGET_NAME} characters, e.g. api.example.com or staging)`;

/** True when `s` is a valid target name. */
export function isTargetName(s: unknown): s is string {
  return typeof s === 'string' && s.length <= MAX_TARGET_NAME && TARGET_NAME_RE.test(s);
}

/**
 * The default name of the target at `baseUrl`: its host (`api.example.com`, `10.0.0.5:8443`),
 * without IPv6 brackets; never its path, query or credentials. Undefined when the URL is not one.
 */
export function targetNameOf(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const name = url.host.replace(/^\[([^\]]*)\]/, '$1');
  return isTargetName(name) ? name : undefined;
}
