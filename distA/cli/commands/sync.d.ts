import type { CommandModule } from 'yargs';
import { type CliContext } from '../context.js';
export declare function syncCommand(ctx: CliContext): CommandModule;
