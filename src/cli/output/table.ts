/** Rendering rows as an aligned text table, CSV or JSON lines. */

export const OUTPUT_FORMATS = ['table', 'csv', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'object') return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint';
}

export function renderTable(columns: readonly string[], rows: readonly Record<string, unknown>[], maxWidth = 60): string {
  const clip = (s: string): string => (s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s);
  const cells = rows.map((row) => columns.map((c) => clip(formatCell(row[c]).replace(/\s+/g, ' '))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const numeric = columns.map((c) => rows.length > 0 && rows.every((r) => r[c] === null || isNumeric(r[c])));
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const out = [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  out.push(`(${rows.length} row${rows.length === 1 ? '' : 's'})`);
  return out.join('\n') + '\n';
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function renderCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvField(formatCell(row[c]))).join(','));
  return lines.join('\n') + '\n';
}

export function renderJsonLines(rows: readonly Record<string, unknown>[]): string {
  return rows
    .map((row) => JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) + '\n')
    .join('');
}

export function renderRows(format: OutputFormat, columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  if (format === 'csv') return renderCsv(columns, rows);
  if (format === 'json') return renderJsonLines(rows);
  return renderTable(columns, rows);
}
