export declare function readSqlFile(name: string): string;
/** Where sql/ lives, with a trailing slash. */
export declare function sqlDir(): string;
/** A string as a SQL literal (for file lists DuckDB's table functions take as constants). */
export declare function sqlString(value: string): string;
/** A name as a quoted SQL identifier (a database alias, a table). */
export declare function sqlIdentifier(name: string): string;
/**
 * Pure: a WHERE clause (with its leading space; empty when no value is set) that matches each
 * column to its value, as named parameters (`$column`). Unset and empty values are left out.
 */
export declare function whereEquals(values: Readonly<Record<string, string | undefined>>): {
    where: string;
    params: Record<string, string>;
};
