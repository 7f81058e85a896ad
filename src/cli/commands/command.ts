/** What every command file makes: kept apart from the list, so commands do not import it. */
import type { CommandModule } from 'yargs';
import type { CommandContext } from '../context.js';

/** A command is made for one invocation's context, so handlers never reach for globals. */
export type MakeCommand = (ctx: CommandContext) => CommandModule<object, any>;
