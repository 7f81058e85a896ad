/** Process exit codes (docs/measuring.md, "Exit codes"): other tools branch on these. */
export const EXIT = {
  /** Every threshold passed. */
  OK: 0,
  /** A threshold (or a compare regression, or a probe) failed. */
  FAILED: 1,
  /**
   * Bad input: scenario, flags, files; and an output that could not be written (a full disk, a
   * read-only path: the path and the system's reason are said). Either way the user's setup is
   * what to fix, not the target nor flowgauge.
   */
  BAD_INPUT: 2,
  /** The target could not be reached at all. */
  UNREACHABLE: 3,
  /**
   * The target answered, but not as the interface does: another protocol than HTTP/1.1 (an SSH
   * banner, HTTP/2, an HTML page with no status line) or `GET /flows` in another shape.
   * EX_PROTOCOL of sysexits.h: the address is wrong, not the network.
   */
  PROTOCOL: 76,
  /**
   * flowgauge itself failed (a bug: "internal error (please report it)"), EX_SOFTWARE of
   * sysexits.h. Never 1: a release gate must tell a broken tool from a failed threshold.
   */
  INTERNAL: 70,
  /**
   * Stopped early: the report was written (marked `interrupted`), but a partial run proves
   * nothing, so a release gate must not read it as a pass. 128 + SIGINT, as shells do; a stop by
   * SIGHUP or SIGTERM exits with its own 128 + N (`HANGUP`, `TERMINATED`), and a stop that no
   * signal asked for (a worker lost, the scenario's own `process.exit`) with this one.
   */
  INTERRUPTED: 130,
  /** Stopped by SIGHUP (the terminal closed, an SSH session dropped): 128 + 1, its output written as for `INTERRUPTED`. */
  HANGUP: 129,
  /** Stopped by SIGTERM (a kill, a service manager, Kubernetes): 128 + 15, its output written as for `INTERRUPTED`. */
  TERMINATED: 143,
} as const;

/** One of the documented exit codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
