/** The SQL that ships with docpipe (sql/): migrations, views, ready-made queries. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

export function readSqlFile(name: string): string {
  return readFileSync(`${SQL_DIR}${name}`, 'utf8');
}

/** Where sql/ lives, with a trailing slash. */
export function sqlDir(): string {
  return SQL_DIR;
}

/** A string as a SQL literal (for file lists DuckDB's table functions take as constants). */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
