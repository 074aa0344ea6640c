/** `docpipe jobs from-query`: one prompt per row of a SQL query, submitted like `jobs submit`. */
import type { CommandModule } from 'yargs';
import { type CliContext } from '../context.js';
export declare function fromQueryCommand(ctx: CliContext): CommandModule;
