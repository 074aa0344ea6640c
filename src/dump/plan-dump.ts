/**
 * The dump planner: pure functions that say which rows of which table go to which
 * hive partition (`<table>/project_id=<id>/year=<yyyy>/month=<m>/`), and which partitions a
 * run replaces. A run rewrites every partition in its scope from the database, whole, so a
 * re-run replaces files and never doubles rows.
 */
import { DateTime } from 'luxon';
import { sqlString } from '../load/sql-files.js';
import { groupBy } from '../core/group-by.js';

export const DUMP_FORMATS = ['parquet', 'csv'] as const;
export type DumpFormat = (typeof DUMP_FORMATS)[number];

export interface DumpTable {
  name: string;
  /** The UTC date a row is filed under. */
  dateSql: string;
  /**
   * Dumped whole whatever the range (only `--project` narrows it): a row's date can move to
   * another month, and a ranged dump would leave its old copy in a month outside the range.
   */
  whole?: boolean;
  /** Rows belong to windows (`window_start`, `window_end`), filed under the month a window starts. */
  windowed?: boolean;
}

/** The four analytics tables by window start; jobs by when they were created (or queued). */
export const DUMP_TABLES: readonly DumpTable[] = [
  { name: 'visitor_totals', dateSql: 'window_start', windowed: true },
  { name: 'page_visitors', dateSql: 'window_start', windowed: true },
  { name: 'view_totals', dateSql: 'window_start', windowed: true },
  { name: 'page_views', dateSql: 'window_start', windowed: true },
  // A job's date moves when a prompt queued in one month is submitted in the next; the ledger is small.
  { name: 'agent_jobs', dateSql: 'CAST(coalesce(created_at, submitted_at, updated_at) AS DATE)', whole: true },
];

export const PARTITION_COLUMNS = ['project_id', 'year', 'month'] as const;

export interface DumpFilter {
  /** Only these projects; all when empty. */
  projects: readonly string[];
  /** Only the months that overlap `[from, to)`; every month when absent. */
  range?: { from: string; to: string };
}

export interface MonthSpan {
  /** First day of the first month, inclusive. */
  from: string;
  /** First day of the month after the last, exclusive. */
  to: string;
}

/** The whole months a range touches: a partition is always rewritten whole. */
export function monthSpan(range: { from: string; to: string }): MonthSpan {
  const from = DateTime.fromISO(range.from, { zone: 'utc' }).startOf('month');
  const last = DateTime.fromISO(range.to, { zone: 'utc' }).minus({ days: 1 }).startOf('month');
  return { from: from.toISODate() ?? '', to: last.plus({ months: 1 }).toISODate() ?? '' };
}

/** Pure: what of `filter` applies to `table` (a table dumped whole keeps only the projects). */
export function scopeOf(table: DumpTable, filter: DumpFilter): DumpFilter {
  return table.whole ? { projects: filter.projects } : filter;
}

/**
 * The first day of the windows of a windowed table that overlap the filter's range, as
 * `YYYY-MM-DD` in a column `first` (NULL when none does). A window is filed under the month it
 * starts: a week that began in the month before the range (and was fetched again since, as a
 * sync does for late data) lies in a partition the range's own months leave out.
 */
export function overlapStartSql(table: DumpTable, filter: DumpFilter): string | undefined {
  if (!table.windowed || !filter.range) return undefined;
  const where = [`window_end > DATE ${sqlString(filter.range.from)}`, `window_start < DATE ${sqlString(filter.range.to)}`];
  if (filter.projects.length > 0) where.push(`project_id IN (${filter.projects.map(sqlString).join(', ')})`);
  return `SELECT strftime(min(window_start), '%Y-%m-%d') AS first FROM ${table.name} WHERE ${where.join(' AND ')}`;
}

/** Pure: the filter with its range reaching back to `first` (see overlapStartSql), when that is earlier. */
export function widenToOverlap(filter: DumpFilter, first: string | null | undefined): DumpFilter {
  if (!filter.range || !first || first >= filter.range.from) return filter;
  return { ...filter, range: { from: first, to: filter.range.to } };
}

/** The rows of one table that a dump writes, with its partition columns; only those of `group` when given. */
export function selectSql(table: DumpTable, filter: DumpFilter, group?: CopyGroup): string {
  const where: string[] = [];
  if (filter.projects.length > 0) where.push(`project_id IN (${filter.projects.map(sqlString).join(', ')})`);
  if (filter.range) {
    const span = monthSpan(filter.range);
    where.push(`${table.dateSql} >= DATE ${sqlString(span.from)} AND ${table.dateSql} < DATE ${sqlString(span.to)}`);
  }
  if (group) where.push(groupSql(table, group));
  return (
    `SELECT * EXCLUDE (docpipe_day), year(docpipe_day) AS year, month(docpipe_day) AS month ` +
    `FROM (SELECT *, ${table.dateSql} AS docpipe_day FROM ${table.name}${where.length ? ` WHERE ${where.join(' AND ')}` : ''})`
  );
}

/**
 * Partitions one COPY writes at most. DuckDB keeps a writer (and its buffers) for each
 * partition a COPY writes: one COPY of 400 projects over 3 years (14,400 partitions, 2.2
 * million rows) peaked at 3 GB, against 172 MB one project at a time.
 */
export const MAX_PARTITIONS_PER_COPY = 120;

/**
 * Rows one COPY writes at most, unless a single partition has more. Each partition's writer
 * buffers up to a Parquet row group, so a COPY of many large months holds many row groups at
 * once: one project's 3 years of daily windows of 6,000 paths (36 months of 180,000 rows) in
 * one COPY peaked at 474-484 MB.
 */
export const MAX_ROWS_PER_COPY = 1_000_000;

/** The rows of one partition (a project's month) that a dump writes; a row without a date has no month. */
export interface PartitionSize {
  projectId: string;
  year: number | null;
  month: number | null;
  rows: number;
}

/**
 * What one COPY writes: projects whole (every month of theirs the dump writes), and the months
 * `[from, to)` of each project it writes in part (a project split across COPYs).
 */
export interface CopyGroup {
  whole: string[];
  parts: { projectId: string; from: string; to: string }[];
}

/** The rows of each partition in what a dump writes of a table, by project and month. */
export function partitionSizesSql(table: DumpTable, filter: DumpFilter): string {
  return `SELECT project_id, year, month, count(*) AS n FROM (${selectSql(table, filter)}) GROUP BY ALL ORDER BY ALL`;
}

const monthStart = (year: number, month: number): string => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-01`;

/**
 * Pure: the partitions, in the order given (by project, then month), cut into COPYs of at most
 * `maxPartitions` partitions and `maxRows` rows; a partition larger than that goes in a COPY of
 * its own. A project with rows that have no date (a job row with no time, which no month
 * holds) is never split: it goes whole.
 */
export function copyGroups(sizes: readonly PartitionSize[], maxPartitions = MAX_PARTITIONS_PER_COPY, maxRows = MAX_ROWS_PER_COPY): CopyGroup[] {
  const byProject = groupBy(sizes, (s) => s.projectId);
  // What can be cut apart: a month, or a project that has undated rows.
  const units = [...byProject.values()].flatMap((months) => (months.some((m) => m.year === null || m.month === null) ? [months] : months.map((m) => [m])));
  const cuts: PartitionSize[][] = [];
  let current: PartitionSize[] = [];
  let rows = 0;
  for (const unit of units) {
    const unitRows = unit.reduce((sum, m) => sum + m.rows, 0);
    if (current.length > 0 && (current.length + unit.length > maxPartitions || rows + unitRows > maxRows)) {
      cuts.push(current);
      current = [];
      rows = 0;
    }
    current.push(...unit);
    rows += unitRows;
  }
  if (current.length > 0) cuts.push(current);
  return cuts.map((cut) => {
    const group: CopyGroup = { whole: [], parts: [] };
    for (const [projectId, months] of groupBy(cut, (s) => s.projectId)) {
      if (months.length === byProject.get(projectId)!.length) {
        group.whole.push(projectId);
        continue;
      }
      // Split projects have a date on every row (see units).
      const first = months[0]!;
      const last = months.at(-1)!;
      const [year, month] = [last.year!, last.month!];
      group.parts.push({ projectId, from: monthStart(first.year!, first.month!), to: month === 12 ? monthStart(year + 1, 1) : monthStart(year, month + 1) });
    }
    return group;
  });
}

/** The condition that keeps the rows of one COPY's group (see copyGroups). */
function groupSql(table: DumpTable, group: CopyGroup): string {
  const terms = [
    ...(group.whole.length > 0 ? [`project_id IN (${group.whole.map(sqlString).join(', ')})`] : []),
    ...group.parts.map(
      (p) => `(project_id = ${sqlString(p.projectId)} AND ${table.dateSql} >= DATE ${sqlString(p.from)} AND ${table.dateSql} < DATE ${sqlString(p.to)})`,
    ),
  ];
  return `(${terms.join(' OR ')})`;
}

/** `COPY ... TO dir`, hive-partitioned; zstd for Parquet. */
export function copySql(table: DumpTable, filter: DumpFilter, group: CopyGroup, dir: string, format: DumpFormat): string {
  const options =
    format === 'parquet'
      ? `FORMAT parquet, COMPRESSION zstd, PARTITION_BY (${PARTITION_COLUMNS.join(', ')})`
      : `FORMAT csv, HEADER, PARTITION_BY (${PARTITION_COLUMNS.join(', ')})`;
  return `COPY (${selectSql(table, filter, group)}) TO ${sqlString(dir)} (${options})`;
}

/** A partition of the lake; a row without a date (a job row with no time) is in the one with no year and month. */
export interface Partition {
  projectId: string;
  year: number | null;
  month: number | null;
}

/** The name DuckDB gives a partition folder whose value is NULL (`year=__HIVE_DEFAULT_PARTITION__`). */
export const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

/** Whether an existing partition belongs to what this run rewrites (and so is replaced). */
export function inScope(partition: Partition, filter: DumpFilter): boolean {
  if (filter.projects.length > 0 && !filter.projects.includes(partition.projectId)) return false;
  if (!filter.range) return true;
  if (partition.year === null || partition.month === null) return false; // in no month of a range
  const span = monthSpan(filter.range);
  const first = monthStart(partition.year, partition.month);
  return first >= span.from && first < span.to;
}

/** Reads `key=value` of a hive directory name (values are URL-encoded, as DuckDB writes them). */
export function parsePartitionDir(name: string, key: string): string | undefined {
  const prefix = `${key}=`;
  if (!name.startsWith(prefix)) return undefined;
  try {
    return decodeURIComponent(name.slice(prefix.length));
  } catch {
    return undefined;
  }
}
