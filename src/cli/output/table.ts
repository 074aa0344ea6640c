/**
 * Rendering rows as an aligned text table, CSV or JSON lines. Dates are `YYYY-MM-DD` in every
 * format (DuckDB DATE values reach JavaScript as Dates at midnight UTC). The table is for
 * terminals: control characters in values are shown as escapes, never sent as they are.
 */
import { ExactDecimal } from '../../core/exact-decimal.js';
import { jsonSafe, neutralise } from '../../core/neutralise.js';

export const OUTPUT_FORMATS = ['table', 'csv', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * A Date as text: `YYYY-MM-DD` at midnight UTC (a DATE), else `YYYY-MM-DD HH:MM:SS[.fff]+00`
 * like DuckDB prints a TIMESTAMPTZ in UTC.
 */
export function formatDate(date: Date): string {
  const iso = date.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  const time = iso.endsWith('.000Z') ? iso.slice(11, 19) : iso.slice(11, 23);
  return `${iso.slice(0, 10)} ${time}+00`;
}

/** A DOUBLE or FLOAT that is not finite, as DuckDB prints it. */
function nonFiniteText(value: number): string {
  return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
}

/** DuckDB's DECIMAL text is a JSON number as it stands (checked all the same). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * Pure: a value as JSON text. A DECIMAL is a number with every digit DuckDB holds, its scale's
 * zeros too (`1.50`), at any depth and in every row alike, as DuckDB's own JSON writes it; an
 * integer beyond 2^53 is text, a date `YYYY-MM-DD` (formatDate), and an infinite or NaN
 * DOUBLE DuckDB's `inf`, `-inf` or `nan` (JSON has no number for them; null would read as NULL).
 */
export function jsonText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof ExactDecimal) return JSON_NUMBER.test(value.text) ? value.text : JSON.stringify(value.text);
  if (value instanceof Date) return JSON.stringify(formatDate(value));
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? value.toString() : JSON.stringify(value.toString());
  if (typeof value === 'number') return JSON.stringify(Number.isFinite(value) ? value : nonFiniteText(value));
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return jsonText(toJSON.call(value));
    return `{${Object.entries(value).map(([k, v]) => `${jsonSafe(JSON.stringify(k))}:${jsonText(v)}`).join(',')}}`;
  }
  return jsonSafe(JSON.stringify(value) ?? 'null');
}

export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return formatDate(value);
  if (typeof value === 'bigint' || value instanceof ExactDecimal) return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return nonFiniteText(value);
  if (typeof value === 'object') return jsonText(value);
  return String(value);
}

function isNumeric(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint' || value instanceof ExactDecimal;
}

/** How a table shrinks to fit its line width. */
export interface TableFit {
  /** The widest a line may be. @default Infinity */
  lineWidth?: number;
  /** Columns that shrink first, in this order, each down to its minimum before the next. */
  shrinkFirst?: readonly string[];
  /** The narrowest a column may get. @default its header's length, and at least 8 */
  minWidths?: Readonly<Record<string, number>>;
}

/**
 * Pure: column widths that fit `fit.lineWidth` (two spaces between columns). The columns
 * of `shrinkFirst` give up characters first, in order; then the widest column, a character at
 * a time. No column goes below its minimum, even when the line cannot fit.
 */
export function fitWidths(widths: readonly number[], headers: readonly string[], fit: TableFit = {}): number[] {
  const lineWidth = fit.lineWidth ?? Number.POSITIVE_INFINITY;
  const fitted = [...widths];
  const excess = (): number => fitted.reduce((a, b) => a + b, 0) + 2 * Math.max(0, fitted.length - 1) - lineWidth;
  const floor = headers.map((h) => fit.minWidths?.[h] ?? Math.max(h.length, 8));
  for (const name of fit.shrinkFirst ?? []) {
    const i = headers.indexOf(name);
    if (i === -1 || excess() <= 0) continue;
    fitted[i] = Math.max(Math.min(floor[i]!, fitted[i]!), fitted[i]! - excess());
  }
  while (excess() > 0) {
    let widest = -1;
    for (let i = 0; i < fitted.length; i++) {
      if (fitted[i]! > floor[i]! && (widest === -1 || fitted[i]! > fitted[widest]!)) widest = i;
    }
    if (widest === -1) break;
    fitted[widest]!--;
  }
  return fitted;
}

/** Wide on a terminal: Hangul jamo, CJK, Hangul syllables, fullwidth forms, and emoji pictographs. */
const WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F680}-\u{1F6FF}\u{1F900}-\u{1FAFF}\u{20000}-\u{3FFFD}]/u;
const MARK = /\p{M}/u;

/** Columns one character (code point) takes: none for a combining mark, a zero-width space or joiner, a variation selector. */
function charWidth(c: string): number {
  const code = c.codePointAt(0) ?? 0;
  if (MARK.test(c) || (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f)) return 0;
  return WIDE.test(c) ? 2 : 1;
}

/** Pure: the columns text takes on a terminal (a wide character two, a combining mark none), not its UTF-16 length. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const c of text) width += charWidth(c);
  return width;
}

/** Pure: text cut to `width` columns, ending in `…` when cut; never inside a character (a surrogate pair). */
function clip(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const c of text) {
    const w = charWidth(c);
    if (used + w > width - 1) break;
    out += c;
    used += w;
  }
  return `${out}…`;
}

/**
 * @param maxWidth the widest a cell may be
 * @param fit how the table shrinks to a line width (cells cut short end in `…`)
 */
export function renderTable(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  maxWidth = 60,
  fit: TableFit = {},
): string {
  const shown = (text: string): string => clip(neutralise(text.replace(/\s+/g, ' ')), maxWidth);
  const cells = rows.map((row) => columns.map((c) => shown(formatCell(row[c]))));
  // A column's name may come from the data too (a PIVOT on paths): shown as its cells are.
  const headers = columns.map(shown);
  const natural = columns.map((_c, i) => Math.max(displayWidth(headers[i] ?? ''), ...cells.map((r) => displayWidth(r[i] ?? ''))));
  const widths = fitWidths(natural, columns, fit);
  const numeric = columns.map((c) => rows.length > 0 && rows.every((r) => r[c] === null || isNumeric(r[c])));
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => {
        const w = widths[i] ?? 0;
        const text = clip(v, w);
        const room = ' '.repeat(Math.max(0, w - displayWidth(text)));
        return numeric[i] ? room + text : text + room;
      })
      .join('  ')
      .trimEnd();
  const out = [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  out.push(`(${rows.length} row${rows.length === 1 ? '' : 's'})`);
  return out.join('\n') + '\n';
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * A value as a CSV field: NULL is an empty field and an empty string a quoted one (`""`), as
 * DuckDB writes them, so that a reader tells them apart.
 */
function csvValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = formatCell(value);
  return text === '' ? '""' : csvField(text);
}

export function renderCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvValue(row[c])).join(','));
  return lines.join('\n') + '\n';
}

export function renderJsonLines(rows: readonly Record<string, unknown>[]): string {
  return rows.map((row) => jsonText(row) + '\n').join('');
}

export function renderRows(
  format: OutputFormat,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  fit: TableFit = {},
): string {
  if (format === 'csv') return renderCsv(columns, rows);
  if (format === 'json') return renderJsonLines(rows);
  return renderTable(columns, rows, 60, fit);
}
