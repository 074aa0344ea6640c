/**
 * Pure data-quality checks. Counts are stored as integers; a row that breaks the uniques
 * invariant `max(human, ai) <= total <= human + ai` (or carries non-integral or negative
 * counts) is kept with flags, never dropped.
 */
import type { ApiRow, Counts } from '../api/schemas.js';

export const ROW_FLAGS = ['non_integral', 'negative', 'total_out_of_bounds'] as const;
export type RowFlag = (typeof ROW_FLAGS)[number];

export interface CheckedCounts {
  human: number;
  ai: number;
  total: number;
  /** Comma-separated flags, or null for a clean row. */
  flags: string | null;
}

export interface CheckedRow extends CheckedCounts {
  path: string;
}

export function checkCounts(counts: Counts): CheckedCounts {
  const flags: RowFlag[] = [];
  const raw = [counts.human, counts.ai, counts.total];
  if (raw.some((n) => !Number.isInteger(n))) flags.push('non_integral');
  const [human, ai, total] = raw.map((n) => (Number.isFinite(n) ? Math.round(n) : 0)) as [number, number, number];
  if (human < 0 || ai < 0 || total < 0) flags.push('negative');
  if (total < Math.max(human, ai) || total > human + ai) flags.push('total_out_of_bounds');
  return { human, ai, total, flags: flags.length > 0 ? flags.join(',') : null };
}

export function checkRow(row: ApiRow): CheckedRow {
  return { path: row.path, ...checkCounts(row) };
}

/** One warning line per flag kind, e.g. `3 rows total_out_of_bounds`. */
export function summariseFlags(rows: readonly { flags: string | null }[], totals: { flags: string | null }): string[] {
  const counts = new Map<string, number>();
  for (const row of rows) {
    for (const flag of row.flags?.split(',') ?? []) counts.set(flag, (counts.get(flag) ?? 0) + 1);
  }
  const warnings = [...counts].map(([flag, n]) => `${n} row${n === 1 ? '' : 's'} ${flag}`);
  if (totals.flags) warnings.push(`totals ${totals.flags}`);
  return warnings;
}
