import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { checkTemplateFields, formatValue, parseTemplate, renderPromptRows, renderTemplate } from '../../src/jobs/prompt-template.js';
import { promptEntries } from '../../src/lib/jobs.js';
import { promptKey } from '../../src/jobs/prompt-files.js';

function usageError(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('prompt templates', () => {
  it.each([
    ['Fix {path}', { path: '/quickstart' }, 'Fix /quickstart'],
    ['{path} had {total} visitors ({ai_share} AI)', { path: '/a', total: 12n, ai_share: 0.25 }, '/a had 12 visitors (0.25 AI)'],
    ['{ path } twice: {path}', { path: '/x' }, '/x twice: /x'],
    ['literal {{braces}} and {path}', { path: '/b' }, 'literal {braces} and /b'],
    ['{{{path}}}', { path: '/c' }, '{/c}'],
    ['null is empty: [{note}]', { note: null }, 'null is empty: []'],
    ['a date: {day}', { day: new Date(Date.UTC(2026, 2, 9)) }, 'a date: 2026-03-09'],
    ['a timestamp: {at}', { at: new Date(Date.UTC(2026, 2, 9, 6, 30)) }, 'a timestamp: 2026-03-09T06:30:00.000Z'],
    ['a fraction: {x}', { x: 1 / 3 }, 'a fraction: 0.333333'],
    ['a list: {xs}', { xs: [1n, 'two'] }, 'a list: ["1","two"]'],
    ['a flag: {b}', { b: false }, 'a flag: false'],
  ] as const)('renders %j', (text, row, expected) => {
    expect(renderTemplate(parseTemplate(text), row)).toBe(expected);
  });

  it('keeps odd characters in values as they are: braces are not fields again, newlines, quotes, emoji, RTL', () => {
    const template = parseTemplate('Page {path}: {title}');
    const row = { path: '/api/{id}/docs', title: 'Line one\nline "two" — 日本語 🚀 ‏עברית\t{total}' };
    expect(renderTemplate(template, row)).toBe(`Page /api/{id}/docs: ${row.title}`);
  });

  it('keeps long values whole, and keys them by the whole text', () => {
    const long = 'x'.repeat(100_000);
    const [a, b] = renderPromptRows(parseTemplate('Fix {path}'), ['path'], [{ path: `${long}a` }, { path: `${long}b` }]);
    expect(a!.prompt).toHaveLength(100_005);
    const { entries } = promptEntries([a!, b!]);
    expect(entries.map((e) => e.key)).toEqual([promptKey(a!.prompt), promptKey(b!.prompt)]);
    expect(entries[0]!.key).not.toBe(entries[1]!.key);
  });

  it('names every field with no matching column, and the columns there are', () => {
    const message = usageError(() => checkTemplateFields(parseTemplate('{path} {pathh} {totl}'), ['path', 'total']));
    expect(message).toBe('--template fields {pathh}, {totl} match no column of the query (columns: path, total)');
    expect(usageError(() => checkTemplateFields(parseTemplate('{Path}'), ['path']))).toMatch(/\{Path\} matches no column/);
  });

  it.each([
    ['', /empty --template/],
    ['Fix {path', /'\{' at character 5 is not closed/],
    ['Fix {pa{th}', /'\{' at character 5 is not closed/],
    ['Fix path}', /'\}' at character 9 closes no field/],
    ['Fix {} now', /empty field \{\} at character 5/],
  ])('refuses the template %j', (text, message) => {
    expect(usageError(() => parseTemplate(text))).toMatch(message);
  });

  it('keys rows by an id column when there is one, and refuses an empty prompt or id, naming the row', () => {
    const template = parseTemplate('Fix {path}');
    expect(renderPromptRows(template, ['id', 'path'], [{ id: 7n, path: '/a' }])).toEqual([{ prompt: 'Fix /a', id: '7', row: 1 }]);
    // Rows numbered as the query returned them, when the caller kept only some.
    expect(renderPromptRows(template, ['path'], [{ path: '/a' }, { path: '/b' }], [2, 5])).toEqual([{ prompt: 'Fix /a', row: 2 }, { prompt: 'Fix /b', row: 5 }]);
    expect(usageError(() => renderPromptRows(template, ['id', 'path'], [{ id: 1, path: '/a' }, { id: null, path: '/b' }], [3, 7]))).toBe(
      'query row 7: the id column is empty',
    );
    expect(usageError(() => renderPromptRows(parseTemplate('{path}'), ['path'], [{ path: '/a' }, { path: '  ' }]))).toBe(
      'query row 2: the template renders an empty prompt',
    );
    expect(usageError(() => renderPromptRows(template, ['id', 'path'], [{ id: 1, path: '/a' }, { id: null, path: '/b' }]))).toBe(
      'query row 2: the id column is empty',
    );
  });

  it('formats values for prompts', () => {
    expect([formatValue(undefined), formatValue(12), formatValue(2.5), formatValue(Number.NaN), formatValue({ a: 1n })]).toEqual(['', '12', '2.5', 'NaN', '{"a":"1"}']);
  });
});
