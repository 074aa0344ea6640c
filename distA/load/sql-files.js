/** The SQL that ships with docpipe (sql/): migrations, views, ready-made queries. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));
export function readSqlFile(name) {
    return readFileSync(`${SQL_DIR}${name}`, 'utf8');
}
/** Where sql/ lives, with a trailing slash. */
export function sqlDir() {
    return SQL_DIR;
}
/** A string as a SQL literal (for file lists DuckDB's table functions take as constants). */
export function sqlString(value) {
    return `'${value.replace(/'/g, "''")}'`;
}
/** A name as a quoted SQL identifier (a database alias, a table). */
export function sqlIdentifier(name) {
    return `"${name.replace(/"/g, '""')}"`;
}
/**
 * Pure: a WHERE clause (with its leading space; empty when no value is set) that matches each
 * column to its value, as named parameters (`$column`). Unset and empty values are left out.
 */
export function whereEquals(values) {
    const set = Object.entries(values).filter((entry) => Boolean(entry[1]));
    return {
        where: set.length > 0 ? ` WHERE ${set.map(([column]) => `${column} = $${column}`).join(' AND ')}` : '',
        params: Object.fromEntries(set),
    };
}
//# sourceMappingURL=sql-files.js.map