/** `docpipe jobs message`: follow-up messages to agent jobs, one or a batch file, each sent once. */
import type { CommandModule } from 'yargs';
import { type CliContext } from '../context.js';
export declare function messageCommand(ctx: CliContext): CommandModule;
