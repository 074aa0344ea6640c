import type { CommandModule } from 'yargs';
import { type CliContext } from '../context.js';
export declare function readSql(sql: string | undefined, file: string | undefined): {
    text: string;
    label: string;
};
export declare function queryCommand(ctx: CliContext): CommandModule;
