export declare const DUMP_FORMATS: readonly ["parquet", "csv"];
export type DumpFormat = (typeof DUMP_FORMATS)[number];
export interface DumpTable {
    name: string;
    /** The UTC date a row is filed under. */
    dateSql: string;
}
/** The four analytics tables by window start; jobs by when they were created (or queued). */
export declare const DUMP_TABLES: readonly DumpTable[];
export declare const PARTITION_COLUMNS: readonly ["project_id", "year", "month"];
export interface DumpFilter {
    /** Only these projects; all when empty. */
    projects: readonly string[];
    /** Only the months that overlap `[from, to)`; every month when absent. */
    range?: {
        from: string;
        to: string;
    };
}
export interface MonthSpan {
    /** First day of the first month, inclusive. */
    from: string;
    /** First day of the month after the last, exclusive. */
    to: string;
}
/** The whole months a range touches: a partition is always rewritten whole. */
export declare function monthSpan(range: {
    from: string;
    to: string;
}): MonthSpan;
/** The rows of one table that a dump writes, with its partition columns. */
export declare function selectSql(table: DumpTable, filter: DumpFilter): string;
/** `COPY ... TO dir`, hive-partitioned; zstd for Parquet. */
export declare function copySql(table: DumpTable, filter: DumpFilter, dir: string, format: DumpFormat): string;
export interface Partition {
    projectId: string;
    year: number;
    month: number;
}
/** Whether an existing partition belongs to what this run rewrites (and so is replaced). */
export declare function inScope(partition: Partition, filter: DumpFilter): boolean;
/** Reads `key=value` of a hive directory name (values are URL-encoded, as DuckDB writes them). */
export declare function parsePartitionDir(name: string, key: string): string | undefined;
