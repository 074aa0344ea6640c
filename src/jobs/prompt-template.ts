/**
 * Pure: prompt templates for `docpipe jobs from-query`. A template is text with fields in
 * braces, each a column name of the query (`Fix {path}: {total} visitors`); `{{` and `}}`
 * stand for literal braces. Rendering is one pass, so braces inside a value stay as they are.
 */
import { UsageError } from '../core/errors.js';
import { ExactDecimal } from '../core/exact-decimal.js';

export type TemplatePart = { kind: 'text'; text: string } | { kind: 'field'; name: string };

export interface Template {
  parts: TemplatePart[];
  /** The distinct field names, in order of first use. */
  fields: string[];
  /** How messages name the template: the CLI's `--template`, the library's `template`. */
  name: string;
}

/** Parses a template; an unclosed or stray brace, or an empty field, is a UsageError naming where. */
export function parseTemplate(text: string, name = '--template'): Template {
  if (typeof text !== 'string' || text.trim() === '') throw new UsageError(`empty ${name}: give the prompt text, with {column} fields`);
  const parts: TemplatePart[] = [];
  let literal = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' && text[i + 1] === '{') {
      literal += '{';
      i++;
    } else if (c === '}' && text[i + 1] === '}') {
      literal += '}';
      i++;
    } else if (c === '{') {
      const end = text.indexOf('}', i + 1);
      const open = text.indexOf('{', i + 1);
      if (end === -1 || (open !== -1 && open < end)) {
        throw new UsageError(`${name}: '{' at character ${i + 1} is not closed (write {{ for a literal brace)`);
      }
      const field = text.slice(i + 1, end).trim();
      if (field === '') throw new UsageError(`${name}: empty field {} at character ${i + 1}`);
      if (literal !== '') parts.push({ kind: 'text', text: literal });
      literal = '';
      parts.push({ kind: 'field', name: field });
      i = end;
    } else if (c === '}') {
      throw new UsageError(`${name}: '}' at character ${i + 1} closes no field (write }} for a literal brace)`);
    } else {
      literal += c;
    }
  }
  if (literal !== '') parts.push({ kind: 'text', text: literal });
  const fields = [...new Set(parts.flatMap((p) => (p.kind === 'field' ? [p.name] : [])))];
  return { parts, fields, name };
}

/** Every field must be a column of the query: the first that is not is a UsageError naming it. */
export function checkTemplateFields(template: Template, columns: readonly string[]): void {
  const missing = template.fields.filter((f) => !columns.includes(f));
  if (missing.length === 0) return;
  const names = missing.map((f) => `{${f}}`).join(', ');
  const known = columns.length === 0 ? 'the query returns no columns' : `columns: ${columns.join(', ')}`;
  throw new UsageError(`${template.name} field${missing.length > 1 ? 's' : ''} ${names} match${missing.length > 1 ? '' : 'es'} no column of the query (${known})`);
}

/**
 * A value as prompt text: NULL is empty, a date (midnight UTC) is `YYYY-MM-DD`, a timestamp
 * ISO 8601, a fraction six significant digits (round in SQL for fewer), a DECIMAL as DuckDB
 * prints it (its scale's digits), a list or struct JSON.
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || value instanceof ExactDecimal) return value.toString();
  if (typeof value === 'number') return Number.isInteger(value) || !Number.isFinite(value) ? String(value) : String(Number(value.toPrecision(6)));
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof value === 'object') return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}

export function renderTemplate(template: Template, row: Readonly<Record<string, unknown>>): string {
  return template.parts.map((p) => (p.kind === 'text' ? p.text : formatValue(row[p.name]))).join('');
}

/** A rendered prompt, keyed by the row's `id` column when the query has one; `row` is its row of the query's result (1-based). */
export interface RenderedPrompt {
  prompt: string;
  id?: string;
  row: number;
}

/**
 * One prompt per row, in row order. A row whose prompt renders empty, or whose `id` is NULL,
 * is a UsageError naming the row: nothing from a half-understood query is submitted. Rows are
 * numbered as the query returned them (1-based), or by `rowNumbers` when the caller kept only
 * some of them (another project's rows left out).
 */
export function renderPromptRows(
  template: Template,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  rowNumbers?: readonly number[],
): RenderedPrompt[] {
  checkTemplateFields(template, columns);
  const hasId = columns.includes('id');
  return rows.map((row, index) => {
    const number = rowNumbers?.[index] ?? index + 1;
    const prompt = renderTemplate(template, row).replace(/\r\n/g, '\n').trim();
    if (prompt === '') throw new UsageError(`query row ${number}: the template renders an empty prompt`);
    if (!hasId) return { prompt, row: number };
    const id = row.id;
    if (id === null || id === undefined || formatValue(id).trim() === '') throw new UsageError(`query row ${number}: the id column is empty`);
    return { prompt, id: formatValue(id).trim(), row: number };
  });
}
