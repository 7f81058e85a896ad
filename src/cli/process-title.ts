/**
 * The process title without secrets. `ps` and `/proc/<pid>/cmdline` show a process's arguments
 * to every local user, so `--token …` given on the command line would be readable by anyone on
 * the machine for as long as a run lasts. Setting `process.title` overwrites that memory (on
 * Linux and macOS), so the title is the command line with secret values replaced.
 */
import { redactUrl } from '../core/url-redact.js';

/** Flags whose value is a secret (any flag whose name says token, secret or password). */
const SECRET_FLAG_RE = /^--?[\w-]*(token|secret|password)[\w-]*$/i;

/** A URL-looking argument without `user:pass@`, query or fragment (core/url-redact.ts's rule). */
function scrubUrl(arg: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(arg) ? redactUrl(arg) : arg;
}

/** `flowgauge <argv>` with the values of secret flags replaced by `***` and URLs scrubbed. */
export function safeProcessTitle(argv: readonly string[]): string {
  const out: string[] = ['flowgauge'];
  let hideNext = false;
  for (const arg of argv) {
    if (hideNext) {
      out.push('***');
      hideNext = false;
      continue;
    }
    const eq = arg.startsWith('-') ? arg.indexOf('=') : -1;
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (SECRET_FLAG_RE.test(name)) {
      if (eq < 0) {
        out.push(arg);
        hideNext = true;
      } else out.push(`${name}=***`);
      continue;
    }
    out.push(eq < 0 ? scrubUrl(arg) : `${name}=${scrubUrl(arg.slice(eq + 1))}`);
  }
  return out.join(' ');
}
