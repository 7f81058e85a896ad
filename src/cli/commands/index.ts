import type { MakeCommand } from './command.js';
import { capacityCommand } from './capacity.js';
import { compareCommand } from './compare.js';
import { conformanceCommand } from './conformance.js';
import { mergeCommand } from './merge.js';
import { newCommand } from './new.js';
import { probeCommand } from './probe.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { schemaCommand } from './schema.js';
import { serveCommand } from './serve.js';
import { sloCommand } from './slo.js';

export type { MakeCommand } from './command.js';

/** Every command, in help order. A command is listed here only once it works. */
export const commandModules: readonly MakeCommand[] = [runCommand, newCommand, probeCommand, reportCommand, compareCommand, mergeCommand, sloCommand, conformanceCommand, capacityCommand, serveCommand, schemaCommand];
