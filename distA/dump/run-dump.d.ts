import type { Executor } from '../load/database.js';
import { type DumpFilter, type DumpFormat } from './plan-dump.js';
export interface DumpOptions {
    out: string;
    format: DumpFormat;
    filter: DumpFilter;
    /** Names the staging folder. */
    runId: string;
}
export interface DumpedTable {
    table: string;
    rows: number;
    partitions: number;
}
export declare function runDump(db: Executor, options: DumpOptions): Promise<DumpedTable[]>;
