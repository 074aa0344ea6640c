import type { CommandModule } from 'yargs';
import { type CliContext } from '../context.js';
export declare function dumpCommand(ctx: CliContext): CommandModule;
