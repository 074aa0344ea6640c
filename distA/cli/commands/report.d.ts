import type { CommandModule } from 'yargs';
import { type CliContext } from '../context.js';
export declare const DEFAULT_REPORT_PATH = "data/report.html";
export declare function reportCommand(ctx: CliContext): CommandModule;
