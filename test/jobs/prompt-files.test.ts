import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { parseCsv } from '../../src/jobs/csv-reader.js';
import {
  PROMPT_FILE_FORMATS,
  parsePromptFile,
  promptKey,
  readPromptFile,
  type PromptFile,
} from '../../src/jobs/prompt-files.js';

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
const BOM = '\uFEFF';
const UNICODE = 'Résumé 日本語 🚀 (e\u0301 stays decomposed)';

/** What an independent implementation of the key rule gives. */
const hashKey = (text: string): string =>
  `sha256:${createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16)}`;

/** Entries reduced to what matters, `id` only when present. */
const summary = (file: PromptFile) =>
  file.entries.map((e) => ({ line: e.line, prompt: e.prompt, key: e.key, ...(e.id === undefined ? {} : { id: e.id }) }));

function usageError(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError, nothing was thrown');
}

async function usageErrorAsync(run: () => Promise<unknown>): Promise<UsageError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError, nothing was thrown');
}

const expectOneLine = (message: string): void => expect(message).not.toMatch(/[\r\n\u0085\u2028\u2029]/);

describe('parsePromptFile: formats', () => {
  it('txt: one prompt per line, comments and blank lines skipped, lines trimmed, CRLF handled', () => {
    const text = [
      '# batch of fixes',
      '',
      '   Fix the typo on /quickstart   ',
      '\t# an indented comment',
      '   ',
      `Translate the intro: ${UNICODE}`,
      'Explain the #2 limit on /api-reference',
      '',
    ].join('\r\n');
    const file = parsePromptFile('prompts.txt', utf8(text));
    expect(file.format).toBe('txt');
    expect(file.path).toBe('prompts.txt');
    expect(summary(file)).toEqual([
      { line: 3, prompt: 'Fix the typo on /quickstart', key: hashKey('Fix the typo on /quickstart') },
      { line: 6, prompt: `Translate the intro: ${UNICODE}`, key: hashKey(`Translate the intro: ${UNICODE}`) },
      { line: 7, prompt: 'Explain the #2 limit on /api-reference', key: hashKey('Explain the #2 limit on /api-reference') },
    ]);
    expect(file.warnings).toEqual([]);
  });

  it('txt: a lone CR (an old Mac editor\'s line break) ends a line too, as do LF and CRLF in one file', () => {
    const file = parsePromptFile('prompts.txt', utf8('first prompt\rsecond prompt\r\nthird prompt\nfourth prompt\r'));
    expect(summary(file).map((e) => [e.line, e.prompt])).toEqual([
      [1, 'first prompt'],
      [2, 'second prompt'],
      [3, 'third prompt'],
      [4, 'fourth prompt'],
    ]);
    // Errors name the line as the prompts are read: CR, CRLF and LF each end one.
    expect(() => parsePromptFile('p.txt', utf8('first prompt\rsecond prompt\r\nthird \u0000 prompt\r'))).toThrow(/^p\.txt:3: contains a NUL character/);
    const bad = Uint8Array.from([...utf8('first prompt\rsecond prompt\r\nthird '), 0xff, ...utf8(' prompt\r')]);
    expect(() => parsePromptFile('p.txt', bad)).toThrow(/^p\.txt:3: is not valid UTF-8/);
    expect(() => parsePromptFile('p.txt', Uint8Array.from([...utf8('a\nb\n'), 0xff]))).toThrow(/^p\.txt:3: is not valid UTF-8/);
    // A CSV's reader counts LF only (a CR may sit in a quoted field): its errors count the same way.
    expect(() => parsePromptFile('p.csv', utf8('prompt,id\n"a\rb",1\n,2\n'))).toThrow(/^p\.csv:3: empty prompt/);
    expect(() => parsePromptFile('p.csv', utf8('prompt,id\n"a\rb",1\n"c\u0000",2\n'))).toThrow(/^p\.csv:3: contains a NUL character/);
    expect(() => parsePromptFile('p.csv', Uint8Array.from([...utf8('prompt,id\n"a\rb",1\n"c'), 0xff, ...utf8('",2\n')]))).toThrow(/^p\.csv:3: is not valid UTF-8/);
  });

  it("jsonl: the user's own fields are left alone, even those that resemble id (pid, _id, prompt_id); an id may begin with mint_", () => {
    const line = JSON.stringify({ prompt: 'Fix the intro', pid: 42, _id: 'x', idx: 1, prompt_id: 'p', promptId: 'q', kind: 'docs', id: 'mint_intro' });
    expect(summary(parsePromptFile('own.jsonl', utf8(`${line}\n`)))).toEqual([{ line: 1, prompt: 'Fix the intro', key: 'mint_intro', id: 'mint_intro' }]);
  });

  it('jsonl: objects per line, \\n escapes make multi-line prompts, ids kept, extra fields ignored', () => {
    const lines = [
      JSON.stringify({ prompt: 'Line one\nLine two\n  indented', id: 'a-1', owner: 'docs' }),
      '',
      '   ',
      JSON.stringify({ prompt: `  ${UNICODE}  `, id: 42 }),
      '{"prompt": "escaped \\u00e9 and \\ud83d\\ude80", "id": null}',
      JSON.stringify({ id: ' spaced ', prompt: 'Third', tags: ['x'] }),
    ];
    const file = parsePromptFile('batch.jsonl', utf8(lines.join('\n') + '\n'));
    expect(file.format).toBe('jsonl');
    expect(summary(file)).toEqual([
      { line: 1, prompt: 'Line one\nLine two\n  indented', key: 'a-1', id: 'a-1' },
      { line: 4, prompt: UNICODE, key: '42', id: '42' },
      { line: 5, prompt: 'escaped é and 🚀', key: hashKey('escaped é and 🚀') },
      { line: 6, prompt: 'Third', key: 'spaced', id: 'spaced' },
    ]);
  });

  it('csv: header names are case-insensitive and trimmed; quoted commas, quotes, newlines; records keep their start line', () => {
    const text = [
      'ID , Prompt ,owner',
      '1,"Fix the ""Getting started"" page, then /faq",docs',
      '2,"First line',
      'second line, with a comma',
      '',
      'last line",platform',
      ',,',
      '',
      `3,${UNICODE},intl`,
      ',  spaced and unquoted  ,',
      '4, "space before the quote" ,x',
    ].join('\r\n');
    const file = parsePromptFile('fixes.CSV', utf8(text));
    expect(file.format).toBe('csv');
    expect(summary(file)).toEqual([
      { line: 2, prompt: 'Fix the "Getting started" page, then /faq', key: '1', id: '1' },
      { line: 3, prompt: 'First line\nsecond line, with a comma\n\nlast line', key: '2', id: '2' },
      { line: 9, prompt: UNICODE, key: '3', id: '3' },
      { line: 10, prompt: 'spaced and unquoted', key: hashKey('spaced and unquoted') },
      { line: 11, prompt: 'space before the quote', key: '4', id: '4' },
    ]);
  });

  it('csv: the id column is optional, a short record reads missing fields as empty', () => {
    const file = parsePromptFile('p.csv', utf8('prompt,notes\nOnly a prompt\nWith a note,yes\n'));
    expect(summary(file)).toEqual([
      { line: 2, prompt: 'Only a prompt', key: hashKey('Only a prompt') },
      { line: 3, prompt: 'With a note', key: hashKey('With a note') },
    ]);
  });

  it.each([
    ['p.txt', `${BOM}# header\nFirst\n`],
    ['p.jsonl', `${BOM}{"prompt":"First"}\n`],
    ['p.csv', `${BOM}prompt\nFirst\n`],
  ])('%s: a leading BOM is ignored', (path, text) => {
    const file = parsePromptFile(path, utf8(text));
    expect(file.entries.map((e) => e.prompt)).toEqual(['First']);
    expect(file.entries[0]?.key).toBe(hashKey('First'));
  });

  it.each([
    ['p.txt', 'txt'],
    ['dir.v2/P.TXT', 'txt'],
    ['p.JsonL', 'jsonl'],
    ['p.Csv', 'csv'],
  ])('%s is read as %s (extension, case-insensitive)', (path, format) => {
    const text = format === 'jsonl' ? '{"prompt":"x"}' : format === 'csv' ? 'prompt\nx' : 'x';
    expect(parsePromptFile(path, utf8(text)).format).toBe(format);
  });

  it('exports the accepted formats', () => {
    expect(PROMPT_FILE_FORMATS).toEqual(['txt', 'jsonl', 'csv']);
  });
});

describe('keys', () => {
  it('promptKey is sha256: and 16 hex chars of the trimmed text', () => {
    expect(promptKey('Fix the typo')).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(promptKey('Fix the typo')).toBe(hashKey('Fix the typo'));
    expect(promptKey('  Fix the typo \n')).toBe(hashKey('Fix the typo'));
    expect(promptKey(UNICODE)).toBe(hashKey(UNICODE));
  });

  it.each([
    ['Fix the typo', 'Fix the typo.'],
    ['fix the typo', 'Fix the typo'],
    ['Résumé', 'Re\u0301sume\u0301'],
    ['a\nb', 'a b'],
  ])('different text gives a different key: %j vs %j', (a, b) => {
    expect(promptKey(a)).not.toBe(promptKey(b));
  });

  it('the same text gets the same key in every format, whatever the line endings', () => {
    const multi = `Update ${UNICODE}\nsecond line`;
    const files = [
      parsePromptFile('a.txt', utf8(`Single line\r\n`)),
      parsePromptFile('a.jsonl', utf8(`${JSON.stringify({ prompt: multi })}\r\n${JSON.stringify({ prompt: 'Single line' })}`)),
      parsePromptFile('a.csv', utf8(`prompt\r\n"${multi.replace('\n', '\r\n')}"\r\nSingle line\r\n`)),
    ];
    const keyOf = (file: PromptFile, prompt: string) => file.entries.find((e) => e.prompt === prompt)?.key;
    const single = files.map((f) => keyOf(f, 'Single line'));
    expect(single).toEqual([hashKey('Single line'), hashKey('Single line'), hashKey('Single line')]);
    expect(keyOf(files[1]!, multi)).toBe(hashKey(multi));
    expect(keyOf(files[2]!, multi)).toBe(hashKey(multi));
  });

  it('an id is the key when present, as a string; the text is not hashed', () => {
    const file = parsePromptFile('k.jsonl', utf8('{"prompt":"Same","id":7}\n{"prompt":"Other","id":"7b"}\n'));
    expect(file.entries.map((e) => e.key)).toEqual(['7', '7b']);
  });
});

describe('duplicates', () => {
  it('txt: a repeated prompt is kept once (the first) and warned about', () => {
    const text = '# c\nAlpha\nBeta\n\n  Alpha  \nGamma\nBeta\n';
    const file = parsePromptFile('prompts.txt', utf8(text));
    expect(file.entries.map((e) => [e.line, e.prompt])).toEqual([
      [2, 'Alpha'],
      [3, 'Beta'],
      [6, 'Gamma'],
    ]);
    expect(file.warnings).toEqual([
      'prompts.txt:5: duplicate of line 2, submitted once',
      'prompts.txt:7: duplicate of line 3, submitted once',
    ]);
  });

  it.each([
    ['jsonl, same id and text', 'd.jsonl', '{"prompt":"A","id":"x"}\n{"prompt":"B"}\n{"prompt":" A ","id":"x"}\n', 3, 1],
    ['jsonl, number and string id', 'd.jsonl', '{"prompt":"A","id":5}\n{"prompt":"A","id":"5"}\n{"prompt":"B"}\n', 2, 1],
    ['csv, same text without id', 'd.csv', 'id,prompt\n,"multi\nline"\nx,B\n,"multi\r\nline"\n', 5, 2],
  ])('%s: warned and kept once', (_name, path, text, line, firstLine) => {
    const file = parsePromptFile(path, utf8(text));
    expect(file.entries).toHaveLength(2);
    expect(file.warnings).toEqual([`${path}:${line}: duplicate of line ${firstLine}, submitted once`]);
  });

  it('the same text under different ids, or with and without an id, is submitted for each', () => {
    const file = parsePromptFile('d.csv', utf8('id,prompt\na,Same\nb,Same\n,Same\n'));
    expect(file.entries.map((e) => e.key)).toEqual(['a', 'b', hashKey('Same')]);
    expect(file.warnings).toEqual([]);
  });
});

describe('bad files throw a one-line UsageError naming the file and line', () => {
  const longLine = 'x'.repeat(300);
  const cases: [name: string, path: string, content: string | Buffer, line: number | undefined, reason: RegExp][] = [
    ['unknown extension', 'prompts.md', 'Fix it', undefined, /"\.md".*\.txt, \.jsonl, \.csv/],
    ['no extension', 'prompts', 'Fix it', undefined, /no file extension.*\.txt, \.jsonl, \.csv/],
    ['invalid UTF-8 (txt)', 'bad.txt', Buffer.concat([utf8('ok\nok ü\n'), Buffer.from([0x66, 0xc3, 0x28]), utf8('\nok\n')]), 3, /not valid UTF-8/],
    ['invalid UTF-8 before a LF', 'bad.jsonl', Buffer.concat([utf8('{"prompt":"a"}\n{"prompt":"'), Buffer.from([0xe6, 0x97]), utf8('"}\n{"prompt":"c"}')]), 2, /not valid UTF-8/],
    ['truncated UTF-8 at the end', 'bad.csv', Buffer.concat([utf8('prompt\na\nb'), Buffer.from([0xf0, 0x9f, 0x9a])]), 3, /not valid UTF-8/],
    ['UTF-16 file', 'wide.txt', Buffer.from('\uFEFFFix it\n', 'utf16le'), 1, /UTF-16/],
    ['NUL character', 'nul.txt', 'ok\nb\u0000ad\n', 2, /NUL/],
    ['jsonl: invalid JSON', 'p.jsonl', '{"prompt":"a"}\n\n{"prompt": "b",}\n', 3, /invalid JSON: "\{\\"prompt\\": \\"b\\",\}"/],
    ['jsonl: long invalid JSON is shortened', 'p.jsonl', `{"prompt":"${longLine}`, 1, /invalid JSON: "\{\\"prompt\\":\\"x{29}…"$/],
    ['jsonl: a key given twice', 'p.jsonl', '{"prompt":"a"}\n{"prompt":"Fix it","id":"x","prompt":"Delete it"}', 2, /key "prompt" given twice \(keep one\)$/],
    ['jsonl: an array', 'p.jsonl', '{"prompt":"a"}\n["a"]', 2, /expected a JSON object.*got an array/],
    ['jsonl: a bare string', 'p.jsonl', '"just text"', 1, /expected a JSON object.*got a string/],
    ['jsonl: null', 'p.jsonl', '{"prompt":"a"}\nnull', 2, /got null/],
    ['jsonl: prompt missing', 'p.jsonl', '{"prompt":"a"}\n{"Prompt":"b","id":1}', 2, /missing "prompt" field \(found fields "Prompt", "id"\)/],
    ['jsonl: prompt not a string', 'p.jsonl', '{"prompt":["a"]}', 1, /"prompt" must be a string, got an array/],
    ['jsonl: id a boolean', 'p.jsonl', '{"prompt":"a"}\n{"prompt":"b","id":true}', 2, /"id" must be a string or a number, got a boolean/],
    ['jsonl: id an object', 'p.jsonl', '{"prompt":"b","id":{"n":1}}', 1, /"id" must be a string or a number, got an object/],
    ['jsonl: id empty', 'p.jsonl', '{"prompt":"b","id":"  "}', 1, /"id" is empty/],
    ['jsonl: id too large to be exact', 'p.jsonl', '{"prompt":"b","id":12345678901234567890}', 1, /too large.*string/],
    ['jsonl: id beyond a double', 'p.jsonl', '{"prompt":"a"}\n{"prompt":"b","id":1e400}', 2, /"id" Infinity is too large/],
    ['jsonl: a misspelt id (it would key the prompt by its text)', 'p.jsonl', '{"prompt":"a"}\n{"prompt":"Fix the intro","Id":"intro-1"}', 2, /unknown field "Id": did you mean "id"\?$/],
    ['jsonl: a misspelt prompt beside the prompt', 'p.jsonl', '{"prompt":"Fix","id":"a","promt":"b"}', 1, /unknown field "promt": did you mean "prompt"\?$/],
    ['jsonl: the id in capitals', 'p.jsonl', '{"prompt":"Fix","ID":"a"}', 1, /unknown field "ID": did you mean "id"\?$/],
    ['jsonl: a prompt that is an API key (a key file given as the prompt file)', 'p.jsonl', '{"prompt":"mint_abcdefghijklmnopqrstu"}', 1, /the prompt is shaped like an API key \(mint_…\); refused, not shown$/],
    ['jsonl: a lone surrogate in the prompt (no character: DuckDB would store U+FFFD)', 'p.jsonl', '{"prompt":"a"}\n{"prompt":"follow \\ud800 up"}', 2, /the prompt "follow \\ud800 up" holds a lone surrogate escape/],
    ['jsonl: a lone low surrogate in the id', 'p.jsonl', '{"prompt":"a","id":"x\\udc00"}', 1, /the id "x\\udc00" holds a lone surrogate escape/],
    ['jsonl: empty prompt', 'p.jsonl', '{"prompt":"a"}\n{"prompt":"  \\n "}', 2, /empty prompt/],
    ['jsonl: same id, different prompt', 'p.jsonl', '{"prompt":"a","id":"x\\ny"}\n{"prompt":"b"}\n{"prompt":"c","id":"x\\ny"}', 3, /id "x\\ny" is already used on line 1 for a different prompt/],
    ['csv: no prompt column', 'p.csv', 'id,text\n1,Fix it\n', 1, /no "prompt" column \(found columns "id", "text"\)/],
    ['csv: header after blank lines, long names shortened', 'p.csv', `\n\n"${longLine}\nz",id\n1,2\n`, 3, /found columns "x{40}…", "id"\)$/],
    ['csv: semicolon-separated', 'p.csv', 'id;prompt\n1;Fix it\n', 1, /found columns "id;prompt"\); the file looks semicolon-separated/],
    ['csv: tab-separated', 'p.csv', '\nPrompt\tid\nFix it\t1\n', 2, /found columns "Prompt\\tid"\); the file looks tab-separated/],
    ['csv: old-Mac lone-CR line breaks', 'p.csv', 'id,prompt\rA,Fix it\rB,Add a page\r', 1, /: its lines end in a lone CR \(old Mac line breaks\), so the whole file reads as its header/],
    ['csv: lone-CR line breaks, prompt column first', 'p.csv', 'prompt,id\rFix intro,1\rFix setup,2\r', 1, /: its lines end in a lone CR \(old Mac line breaks\)/],
    ['csv: one column, lone-CR line breaks', 'p.csv', 'prompt\rFix it\rAdd a page\r', 1, /lone CR/],
    ['csv: two prompt columns', 'p.csv', 'prompt,PROMPT\na,b\n', 1, /more than one "prompt" column/],
    ['csv: unterminated quoted field', 'p.csv', 'id,prompt\n1,"two\nlines"\n2,"never\nclosed\n3,c\n', 4, /unterminated quoted field/],
    ['csv: text after a closing quote', 'p.csv', 'id,prompt\n1,"a"b\n', 2, /after a closing quote/],
    ['csv: more fields than the header', 'p.csv', 'id,prompt\n1,"a\nb"\n2,Fix the intro, then the outro\n', 4, /3 fields but the header has 2 columns/],
    ['csv: empty prompt', 'p.csv', 'id,prompt\n1,a\n2,"  "\n', 3, /empty prompt/],
    ['csv: same id, different prompt', 'p.csv', 'id,prompt\n7,a\n8,b\n7,c\n', 4, /id "7" is already used on line 2 for a different prompt/],
    ['txt: empty file', 'p.txt', '', undefined, /no prompts found/],
    ['txt: only comments and blanks', 'p.txt', `${BOM}# only\n\n  # comments\n`, undefined, /no prompts found/],
    ['jsonl: only blank lines', 'p.jsonl', '\n  \n', undefined, /no prompts found/],
    ['csv: empty file', 'p.csv', '', undefined, /no prompts found/],
    ['csv: only a header', 'p.csv', 'id,prompt\n,\n', undefined, /no prompts found/],
    ['path with a line break is escaped', 'odd\nname.txt', '# none', undefined, /no prompts found/],
  ];

  it.each(cases)('%s', (_name, path, content, line, reason) => {
    const bytes = typeof content === 'string' ? utf8(content) : content;
    const error = usageError(() => parsePromptFile(path, bytes));
    const shownPath = path.replace(/\n/g, '\\n');
    const prefix = line === undefined ? `${shownPath}: ` : `${shownPath}:${line}: `;
    expect(error.message.startsWith(prefix), `${error.message} should start with ${prefix}`).toBe(true);
    expect(error.message).toMatch(reason);
    expectOneLine(error.message);
    expect(error.message.length).toBeLessThan(200);
    expect(error.exitCode).toBe(2);
  });

  it('escapes every control character in the path, not only LF', () => {
    const error = usageError(() => parsePromptFile('a\rb\u0085c\u2028d\te\u001b.txt', utf8('# none')));
    expect(error.message).toBe('a\\rb\\u0085c\\u2028d\\te\\u001b.txt: no prompts found (only blank lines and # comments)');
    expectOneLine(error.message);
  });

  it('wraps the parser error as cause rather than pasting it', () => {
    const error = usageError(() => parsePromptFile('p.jsonl', utf8('{oops')));
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.message).not.toContain((error.cause as Error).message);
  });
});

describe('readPromptFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpipe-prompts-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a txt file with a BOM and CRLF line endings', async () => {
    const path = join(dir, 'windows.txt');
    await writeFile(path, `${BOM}# exported from Notepad\r\nFirst prompt\r\n\r\n  ${UNICODE}  \r\nFirst prompt\r\n`);
    const file = await readPromptFile(path);
    expect(file.path).toBe(path);
    expect(summary(file)).toEqual([
      { line: 2, prompt: 'First prompt', key: hashKey('First prompt') },
      { line: 4, prompt: UNICODE, key: hashKey(UNICODE) },
    ]);
    expect(file.warnings).toEqual([`${path}:5: duplicate of line 2, submitted once`]);
  });

  it('reads a csv file with a BOM, CRLF and a quoted multi-line prompt', async () => {
    const path = join(dir, 'excel.csv');
    await writeFile(path, `${BOM}Id,Prompt\r\nq1,"Two\r\nlines"\r\nq2,${UNICODE}\r\n`);
    const file = await readPromptFile(path);
    expect(summary(file)).toEqual([
      { line: 2, prompt: 'Two\nlines', key: 'q1', id: 'q1' },
      { line: 4, prompt: UNICODE, key: 'q2', id: 'q2' },
    ]);
  });

  it('reads the committed csv fixture', async () => {
    const file = await readPromptFile('test/fixtures/prompts/docs-fixes.csv');
    expect(summary(file)).toEqual([
      { line: 2, prompt: 'Add a troubleshooting section to /quickstart for the "invalid API key" error', key: 'qs-401', id: 'qs-401' },
      {
        line: 3,
        prompt:
          'Document the rate limits on /api-reference:\n- analytics: 100 requests per hour per organization\n- agent jobs: 100 per hour per project',
        key: 'limits',
        id: 'limits',
      },
      {
        line: 6,
        prompt: 'Translate the /glossary page title to Japanese: 用語集',
        key: hashKey('Translate the /glossary page title to Japanese: 用語集'),
      },
    ]);
  });

  it('reads the demo example: six prompts, one [nopr], one [fail]', async () => {
    const file = await readPromptFile('data/prompts.example.txt');
    expect(file.entries).toHaveLength(6);
    expect(file.warnings).toEqual([]);
    expect(file.entries.every((e) => !e.prompt.startsWith('#'))).toBe(true);
    expect(file.entries.filter((e) => e.prompt.includes('[nopr]'))).toHaveLength(1);
    expect(file.entries.filter((e) => e.prompt.includes('[fail]'))).toHaveLength(1);
  });

  it('a missing file is a UsageError naming the path, with the cause kept', async () => {
    const path = join(dir, 'missing.jsonl');
    const error = await usageErrorAsync(() => readPromptFile(path));
    expect(error.message).toBe(`${path}: no such file`);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('a directory is a UsageError', async () => {
    const path = join(dir, 'folder.txt');
    await mkdir(path);
    const error = await usageErrorAsync(() => readPromptFile(path));
    expect(error.message).toBe(`${path}: is a directory, not a prompt file`);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a bad extension is refused before reading (no "no such file")', async () => {
    const path = join(dir, 'missing.xlsx');
    const error = await usageErrorAsync(() => readPromptFile(path));
    expect(error.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*"\\.xlsx"`));
  });

  it('a bad file on disk is refused with its line', async () => {
    const path = join(dir, 'bad.jsonl');
    await writeFile(path, '{"prompt":"ok"}\r\n{"prompt":42}\r\n');
    const error = await usageErrorAsync(() => readPromptFile(path));
    expect(error.message).toBe(`${path}:2: "prompt" must be a string, got a number`);
  });
});

describe('parseCsv', () => {
  it.each([
    ['a,b\n', [{ line: 1, fields: ['a', 'b'] }]],
    ['a,b', [{ line: 1, fields: ['a', 'b'] }]],
    ['a,\r\n,b\r\n', [{ line: 1, fields: ['a', ''] }, { line: 2, fields: ['', 'b'] }]],
    ['"x\ny",z\nw', [{ line: 1, fields: ['x\ny', 'z'] }, { line: 3, fields: ['w'] }]],
    ['"a""b",say "hi"\n', [{ line: 1, fields: ['a"b', 'say "hi"'] }]],
    ['""\n\n', [{ line: 1, fields: [''] }, { line: 2, fields: [''] }]],
    ['"q"\r', [{ line: 1, fields: ['q'] }]],
    ['', []],
  ])('%j', (text, records) => {
    expect(parseCsv(text)).toEqual({ ok: true, records });
  });
});
