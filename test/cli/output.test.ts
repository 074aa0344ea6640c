/** Output people read (issue 8, items 7 and 8): dates, tables, progress lines, query results. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { neutralise } from '../../src/core/neutralise.js';
import { createLogger } from '../../src/core/logger.js';
import { Database } from '../../src/load/database.js';
import { displayWidth, fitWidths, formatDate, renderCsv, renderJsonLines, renderTable } from '../../src/cli/output/table.js';
import { logLines, startHarness, summaryOf, type Harness } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const FAST = ['--poll-interval', '0.5', '--project', 'docs'];
const ESC = '\u001b';

describe('rendering', () => {
  it.each([
    ['2026-10-31T00:00:00.000Z', '2026-10-31'],
    ['2026-10-31T06:05:04.000Z', '2026-10-31 06:05:04+00'],
    ['2026-10-31T06:05:04.123Z', '2026-10-31 06:05:04.123+00'],
  ])('formats the Date %s as %s', (iso, text) => {
    expect(formatDate(new Date(iso))).toBe(text);
  });

  it('CSV tells NULL (an empty field) from an empty string (""), as DuckDB writes them', () => {
    const rows = [{ id: 1, v: null }, { id: 2, v: '' }, { id: 3, v: 'a,b' }];
    expect(renderCsv(['id', 'v'], rows)).toBe('id,v\n1,\n2,""\n3,"a,b"\n');
  });

  it('prints Dates as YYYY-MM-DD in table, CSV and JSON', () => {
    const rows = [{ day: new Date('2026-10-31T00:00:00Z'), days: [new Date('2026-11-01T00:00:00Z')], n: 3n }];
    for (const text of [renderTable(['day', 'days', 'n'], rows), renderCsv(['day', 'days', 'n'], rows), renderJsonLines(rows)]) {
      expect(text).toContain('2026-10-31');
      expect(text).toContain('2026-11-01');
      expect(text).not.toMatch(/T00:00:00/);
    }
    expect(JSON.parse(renderJsonLines(rows))).toEqual({ day: '2026-10-31', days: ['2026-11-01'], n: 3 });
  });

  it.each([
    [`${ESC}[2J${ESC}]0;owned${'\u0007'}`, '\\x1b[2J\\x1b]0;owned\\x07'],
    ['\u009b31mred', '\\x9b31mred'],
    ['abc\u202edef', 'abc\\u202edef'],
    ['tab\tand ünïcödé 日本', 'tab\\x09and ünïcödé 日本'],
    ['line\nforged', 'line\\x0aforged'],
  ])('neutralises %j', (text, shown) => {
    expect(neutralise(text)).toBe(shown);
  });

  it('JSON output and JSON log lines escape C1 controls, bidirectional overrides and line separators: the same values, nothing a terminal acts on', () => {
    const odd = `a${ESC}\u009b31m\u202e\u2066\u2028\u061cz`;
    const rows = [{ [`k\u202e`]: odd, list: [odd] }];
    const json = renderJsonLines(rows);
    expect(json).not.toMatch(/[\u0080-\u009f\u061c\u2028\u202a-\u202e\u2066-\u2069]/);
    expect(json).toContain('\\u009b31m\\u202e');
    expect(JSON.parse(json)).toEqual(rows[0]);
    const lines: string[] = [];
    createLogger({ format: 'json', write: (l) => void lines.push(l) }).warn('odd', { path: odd });
    expect(lines[0]).not.toMatch(/[\u0080-\u009f\u202e\u2066\u2028\u061c]/);
    expect((JSON.parse(lines[0]!) as { path: string }).path).toBe(odd);
  });

  it('lines columns up by the width text takes on a terminal (wide CJK and emoji, combining marks), and never cuts inside a character', () => {
    const rows = [
      { prompt: '日本語のページを更新する', n: 1 },
      { prompt: 'Re\u0301sume\u0301 e\u0301crit', n: 22 },
      { prompt: `a${'🚀'.repeat(30)}`, n: 333 },
      { prompt: 'plain', n: 4 },
    ];
    const table = renderTable(['prompt', 'n'], rows, 20);
    const lines = table.split('\n').filter((l) => l !== '' && !l.startsWith('('));
    expect(lines.map((l) => displayWidth(l))).toEqual(lines.map(() => displayWidth(lines[0]!)));
    expect(table).not.toContain('\uFFFD');
    expect(table).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no lone high surrogate
    expect(table).toContain(`a${'🚀'.repeat(9)}…`); // 19 columns and the ellipsis
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
  });

  it('shows escape sequences in table cells and text logs as escapes', () => {
    const table = renderTable(['path'], [{ path: `/a${ESC}[31mred` }]);
    expect(table).not.toContain(ESC);
    expect(table).toContain('/a\\x1b[31mred');
    let line = '';
    createLogger({ format: 'text', write: (t) => (line += t) }).warn('window failed', { error: `bad ${ESC}[2J` });
    expect(line).not.toContain(ESC);
    expect(line).toContain('bad \\x1b[2J');
    // A column's name may come from the data (a PIVOT on paths): shown as a cell is.
    const pivot = renderTable([`${ESC}]0;pwned\u0007two\nlines`], [{ [`${ESC}]0;pwned\u0007two\nlines`]: 1 }]);
    expect(pivot).not.toContain(ESC);
    expect(pivot.split('\n')[0]).toBe('\\x1b]0;pwned\\x07two lines');
    // A Unicode line or paragraph separator cannot forge a log line either.
    line = '';
    createLogger({ format: 'text', write: (t) => (line += t) }).info('ev\u2028x', { k: 'y\u2029z' });
    expect(line).toBe('ev\\u2028x k=y\\u2029z\n');
  });

  it('a log line is its own: a field does not replace ts, level or event, and a BIGINT or an Error is written, not a crash or {}', () => {
    for (const format of ['json', 'text'] as const) {
      let line = '';
      createLogger({ format, write: (t) => (line += t), now: () => new Date(0) }).info('x', { level: 'debug', event: 'forged', n: 5n, e: new Error('boom') });
      if (format === 'json') expect(JSON.parse(line)).toEqual({ ts: '1970-01-01T00:00:00.000Z', level: 'info', event: 'x', n: '5', e: 'boom' });
      else expect(line).toBe('x n=5 e=boom\n');
    }
  });

  it('fits columns to a line width, shrinking the widest first', () => {
    expect(fitWidths([10, 80, 40], ['a', 'b', 'c'], { lineWidth: 100 })).toEqual([10, 46, 40]);
    expect(fitWidths([10, 80, 70], ['a', 'b', 'c'], { lineWidth: 100 })).toEqual([10, 43, 43]);
    expect(fitWidths([10, 20], ['a', 'b'], { lineWidth: 100 })).toEqual([10, 20]);
    // Never below a header or 8 characters, even when that cannot fit.
    expect(fitWidths([13, 30], ['a_long_header', 'b'], { lineWidth: 10 })).toEqual([13, 8]);
  });

  it('shrinks the columns named first, down to their minimum, before the others', () => {
    const headers = ['key', 'prompt', 'result'];
    expect(fitWidths([23, 90, 45], headers, { lineWidth: 100, shrinkFirst: ['prompt'], minWidths: { key: 23, prompt: 24 } })).toEqual([23, 28, 45]);
    expect(fitWidths([23, 90, 70], headers, { lineWidth: 100, shrinkFirst: ['prompt'], minWidths: { key: 23, prompt: 24 } })).toEqual([23, 24, 49]);
  });
});

describe('docpipe output', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { jobs: { pollsToFinish: 1 } });
    await (await Database.open(h.db)).close();
  });
  afterEach(async () => {
    await h.close();
  });

  const SQL = `SELECT DATE '2026-10-31' AS day, TIMESTAMPTZ '2026-10-31 06:00:00+00' AS at, chr(27) || '[2Jgone' AS evil`;

  it.each(['table', 'csv', 'json'])('query prints dates as YYYY-MM-DD in %s', async (format) => {
    const result = await h.run(['query', SQL, '--format', format]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('2026-10-31');
    expect(result.stdout).toContain('2026-10-31 06:00:00+00');
    expect(result.stdout).not.toMatch(/T00:00:00|\.000Z/);
    if (format === 'json') expect(JSON.parse(result.stdout)).toMatchObject({ day: '2026-10-31' });
    if (format === 'table') {
      expect(result.stdout).not.toContain(ESC);
      expect(result.stdout).toContain('\\x1b[2Jgone');
    }
  });

  it('query prints dates of real tables as YYYY-MM-DD', async () => {
    expect((await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02'])).code).toBe(0);
    const result = await h.run(['query', 'SELECT window_start, window_end FROM visitor_totals', '--format', 'json']);
    expect(JSON.parse(result.stdout)).toEqual({ window_start: '2026-03-01', window_end: '2026-03-02' });
  });

  it("query keeps DuckDB's 'Did you mean' hint on one line", async () => {
    const result = await h.run(['query', 'SELECT * FROM visitor_total']);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines.some((l) => /Table with name visitor_total does not exist!.*Did you mean \\?"visitor_totals\\?"\?/.test(l))).toBe(true);
  });

  it('query prints the result of each statement', async () => {
    const result = await h.run(['query', "SELECT 1 AS first_col; SET threads = 1; SELECT 'two' AS second_col, 2 AS n"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/first_col\n-+\n\s*1\n\(1 row\)\n\nsecond_col\s+n\n/);
    const csv = await h.run(['query', 'SELECT 1 AS a; SELECT 2 AS b', '--format', 'csv']);
    expect(csv.stdout).toBe('a\n1\n\nb\n2\n');
  });

  it('query prints each of two columns of one name with its own values (the second named name:1), in every format', async () => {
    const sql = 'SELECT 1 AS total, 2 AS total';
    expect((await h.run(['query', sql, '--format', 'csv'])).stdout).toBe('total,total:1\n1,2\n');
    expect(JSON.parse((await h.run(['query', sql, '--format', 'json'])).stdout.trim())).toEqual({ total: 1, 'total:1': 2 });
    expect((await h.run(['query', sql])).stdout).toMatch(/^total\s+total:1\n-+\s+-+\n\s+1\s+2\n/);
  });

  it('query prints a BLOB byte for byte as DuckDB casts it to text: a backslash in it is \\x5C, so no two BLOBs print alike', async () => {
    const sql = `SELECT '\\x5Cx41'::BLOB AS four, 'A'::BLOB AS one, ('a''b"c\\x7F\\x80\\x00')::BLOB AS odd,
                        ('\\x5Cx41'::BLOB)::VARCHAR AS four_duck, ('a''b"c\\x7F\\x80\\x00'::BLOB)::VARCHAR AS odd_duck`;
    const [row] = (await h.run(['query', sql, '--format', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    expect(row).toMatchObject({ four: '\\x5Cx41', one: 'A', odd: 'a\\x27b\\x22c\\x7F\\x80\\x00' });
    expect(row!.four).toBe(row!.four_duck);
    expect(row!.odd).toBe(row!.odd_duck);
  });

  it('query gives a repeated name a suffix no other column has as its name, so that no value is lost', async () => {
    const sql = `SELECT 1 AS total, 2 AS total, 'x' AS "total:1"; SELECT 4 AS "total:1", 5 AS total, 6 AS total, 7 AS total`;
    expect((await h.run(['query', sql, '--format', 'csv'])).stdout).toBe('total,total:2,total:1\n1,2,x\n\ntotal:1,total,total:2,total:3\n4,5,6,7\n');
    const json = (await h.run(['query', sql, '--format', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(json).toEqual([{ total: 1, 'total:2': 2, 'total:1': 'x' }, { 'total:1': 4, total: 5, 'total:2': 6, 'total:3': 7 }]);
  });

  it('query prints infinite dates and timestamps as infinity and -infinity, as DuckDB does', async () => {
    const sql = `SELECT DATE 'infinity' AS a, DATE '-infinity' AS b, 'infinity'::TIMESTAMP_S AS c, '-infinity'::TIMESTAMP_MS AS d,
                        'infinity'::TIMESTAMP_NS AS e, TIMESTAMP '-infinity' AS f, [DATE 'infinity'] AS g, DATE '2026-01-01' AS day`;
    expect((await h.run(['query', sql, '--format', 'csv'])).stdout.split('\n')[1]).toBe('infinity,-infinity,infinity,-infinity,infinity,-infinity,"[""infinity""]",2026-01-01');
  });

  it('query prints DECIMAL with every digit, INTERVAL, BLOB and BIT as DuckDB prints them, in every format', async () => {
    const sql = `SELECT 123456789012345678901234567890.12::DECIMAL(38,2) AS big, 1.50::DECIMAL(4,2) AS price,
                        INTERVAL '1 day 2 hours' AS took, '\\xAB\\x00hi'::BLOB AS bytes, '101'::BIT AS bits,
                        [1.25::DECIMAL(5,2)] AS list, {'d': 2.5::DECIMAL(3,1), 'i': INTERVAL 3 MINUTE} AS s`;
    const csv = await h.run(['query', sql, '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[1]).toBe('123456789012345678901234567890.12,1.50,1 day 02:00:00,\\xAB\\x00hi,101,[1.25],"{""d"":2.5,""i"":""00:03:00""}"');
    // JSON: a DECIMAL is a number with every digit, as DuckDB's own JSON has it.
    const json = (await h.run(['query', sql, '--format', 'json'])).stdout.trim();
    expect(json).toBe(
      '{"big":123456789012345678901234567890.12,"price":1.50,"took":"1 day 02:00:00","bytes":"\\\\xAB\\\\x00hi","bits":"101","list":[1.25],"s":{"d":2.5,"i":"00:03:00"}}',
    );
    expect(JSON.parse(json)).toMatchObject({ price: 1.5, list: [1.25], s: { d: 2.5 } });
    const table = (await h.run(['query', sql])).stdout.split('\n');
    expect(table[2]).toMatch(/^123456789012345678901234567890\.12\s+1\.50\s+1 day 02:00:00\s+\\xAB\\x00hi\s+101\s/);
  });

  it('query writes a DECIMAL column the same way in every row and at any depth, and DOUBLE infinities as DuckDB prints them', async () => {
    const sql = `SELECT d, [d] AS list, {'d': d} AS s, x FROM (VALUES
                   (1.50::DECIMAL(38,2), 'inf'::DOUBLE), (123456789012345678901234567890.12, '-inf'::DOUBLE), (-0.05, 'nan'::DOUBLE), (NULL, 0.5)) t(d, x)`;
    const json = await h.run(['query', sql, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.trim().split('\n')).toEqual([
      '{"d":1.50,"list":[1.50],"s":{"d":1.50},"x":"inf"}',
      '{"d":123456789012345678901234567890.12,"list":[123456789012345678901234567890.12],"s":{"d":123456789012345678901234567890.12},"x":"-inf"}',
      '{"d":-0.05,"list":[-0.05],"s":{"d":-0.05},"x":"nan"}',
      '{"d":null,"list":[null],"s":{"d":null},"x":0.5}',
    ]);
    const csv = (await h.run(['query', sql, '--format', 'csv'])).stdout.split('\n');
    expect(csv[1]).toBe('1.50,[1.50],"{""d"":1.50}",inf');
    expect(csv[2]).toMatch(/,-inf$/);
    expect(csv[3]).toBe('-0.05,[-0.05],"{""d"":-0.05}",nan');
  });

  describe('jobs', () => {
    let file: string;
    const long = 'Rewrite the whole getting-started guide so that every code sample works on Windows, macOS and Linux alike [pr]';
    beforeEach(() => {
      file = join(h.dir, 'prompts.txt');
      writeFileSync(file, `${long}\nShort one with an escape ${ESC}[2J inside [nopr]\nWill fail [fail]\n`);
    });

    it('jobs list fits 100 columns as a table, and CSV and JSON carry every column', async () => {
      h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { error: 'Merge conflict in docs.json' }, times: Infinity });
      expect((await h.run(['jobs', 'submit', file, ...FAST])).code).toBe(0);
      const table = await h.run(['jobs', 'list']);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(2 + 3 + 1);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
      expect(lines[0]).toMatch(/^key\s+status\s+msgs\s+prompt\s+result$/);
      expect(table.stdout).not.toContain(ESC);
      // Keys and pull-request links are shown whole; the prompt gives way.
      for (const job of h.sandbox.jobs().filter((j) => j.prLink)) expect(table.stdout).toContain(job.prLink);
      expect(table.stdout).toMatch(/sha256:[0-9a-f]{16}\s/);
      expect(table.stdout).toMatch(/failed .*Merge conflict/);

      const columns = ['project_id', 'prompt_key', 'prompt', 'status', 'job_id', 'model', 'repository', 'ref', 'pr_link', 'created_at',
        'archived_at', 'submitted_at', 'finished_at', 'error', 'flags', 'source_file', 'attempts', 'polls', 'messages'];
      const csv = await h.run(['jobs', 'list', '--format', 'csv']);
      expect(csv.stdout.split('\n')[0]).toBe(columns.join(','));
      expect(csv.stdout).toContain(long);
      const json = (await h.run(['jobs', 'list', '--format', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(json).toHaveLength(3);
      for (const row of json) expect(Object.keys(row)).toEqual(columns);
      expect(json.find((r) => r.prompt === long)).toMatchObject({ model: 'claude-sonnet-4-5', attempts: 1, pr_link: expect.stringMatching(/\/pull\//) });
    });

    it('progress lines show the start of the prompt, and a failed job shows the reason the API gave', async () => {
      h.sandbox.addFault({ kind: 'patch', match: { method: 'GET', path: '/job/' }, patch: { error: 'Merge conflict in docs.json' }, times: Infinity });
      const result = await h.run(['jobs', 'submit', file, ...FAST, '--concurrency', '1']);
      const submitted = logLines(result).filter((l) => l.event === 'job submitted');
      expect(submitted.map((l) => l.prompt)).toEqual([
        'Rewrite the whole getting-started guide so that…',
        `Short one with an escape ${ESC}[2J inside [nopr]`,
        'Will fail [fail]',
      ]);
      const jobs = summaryOf(result).jobs as { prompt: string; status: string; error: string | null }[];
      expect(jobs.find((j) => j.status === 'failed')).toMatchObject({ prompt: 'Will fail [fail]', error: 'Merge conflict in docs.json' });

      const text = await h.run(['jobs', 'submit', file, ...FAST, '--log-format', 'text']);
      expect(text.stdout).toMatch(/Will fail \[fail\]\s+failed\s+\(Merge conflict in docs\.json\)/);
      expect(text.stdout).not.toContain(ESC);
      expect(readFileSync(h.db).length).toBeGreaterThan(0);
    });
  });
});
