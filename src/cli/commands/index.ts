import type { CommandModule } from 'yargs';
import type { CommandContext } from '../context.js';
import { capacityCommand } from './capacity.js';
import { compareCommand } from './compare.js';
import { conformanceCommand } from './conformance.js';
import { mergeCommand } from './merge.js';
import { newCommand } from './new.js';
import { probeCommand } from './probe.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { sloCommand } from './slo.js';

/** A command is made for one invocation's context, so handlers never reach for globals. */
export type MakeCommand = (ctx: CommandContext) => CommandModule<object, any>;

/** Every command, in help order. A command is listed here only once it works. */
export const commandModules: readonly MakeCommand[] = [runCommand, newCommand, probeCommand, reportCommand, compareCommand, mergeCommand, sloCommand, conformanceCommand, capacityCommand, serveCommand];
