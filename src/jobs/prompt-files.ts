/**
 * Prompt files for `docpipe jobs submit`: `.txt` (one prompt per line, `#` comments),
 * `.jsonl` (`{"prompt": …, "id"?: …}` per line) or `.csv` (a `prompt` column, optional `id`).
 *
 * A bad file is refused whole, with one line that names the file and the line, so nothing
 * from a half-understood file is ever submitted. Every entry gets a stable key (the user's
 * id, or a hash of the text) that the job ledger uses to submit each prompt once across runs.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { UsageError } from '../core/errors.js';
import { describeDuplicateKey, firstDuplicateKey } from '../core/json-keys.js';
import { decodeUtf8, escapeChar, fileLine as where, isWellFormed } from '../core/text-file.js';
import { parseCsv, type CsvRecord } from './csv-reader.js';
import { editDistance } from '../core/did-you-mean.js';
import { isKeyShaped } from '../core/domain.js';

/**
 * The field of a `.jsonl` prompt line a key was surely meant to be: `id` or `prompt` in other
 * letter case (`Id`, `PROMPT`), or `prompt` one letter off (`promt`, `prompts`). A name that only
 * resembles `id` (`pid`, `_id`, `idx`) may well be the user's own field, and is left alone.
 */
function misspeltField(key: string): string | undefined {
  if (key === 'id' || key === 'prompt') return undefined;
  const lower = key.toLowerCase();
  if (lower === 'id') return 'id';
  return lower === 'prompt' || editDistance(lower, 'prompt') === 1 ? 'prompt' : undefined;
}

export const PROMPT_FILE_FORMATS = ['txt', 'jsonl', 'csv'] as const;
export type PromptFileFormat = (typeof PROMPT_FILE_FORMATS)[number];

export interface PromptEntry {
  /** The entry's `id` if given (as a string), else `sha256:` + 16 hex chars of the prompt's hash. */
  key: string;
  /** Trimmed prompt text; inner newlines kept (CRLF becomes LF). */
  prompt: string;
  /** 1-based line where the entry starts in the file. */
  line: number;
  /** The user's id, when given. */
  id?: string;
}

export interface PromptFile {
  path: string;
  format: PromptFileFormat;
  entries: PromptEntry[];
  /** One line each, `<path>:<line>: …` (duplicates that were dropped). */
  warnings: string[];
}

/** Reads a prompt file from disk. Throws `UsageError` for a missing, unreadable or bad file. */
export async function readPromptFile(path: string): Promise<PromptFile> {
  // Fail on a wrong extension before touching the disk.
  promptFileFormatOf(path);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw new UsageError(`${where(path)}: ${describeReadError(cause)}`, { cause });
  }
  return parsePromptFile(path, bytes);
}

/** Parses the bytes of a prompt file; `path` picks the format and names the file in messages. */
export function parsePromptFile(path: string, bytes: Uint8Array): PromptFile {
  const format = promptFileFormatOf(path);
  // Lines are counted as the format's reader counts them: a lone CR ends a line of .txt only.
  const crEndsLine = format === 'txt';
  const text = decodeUtf8(path, bytes, crEndsLine);
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    throw new UsageError(`${where(path, lineAt(text, nul, crEndsLine))}: contains a NUL character (a binary or UTF-16 file?)`);
  }
  const raw = format === 'txt' ? readTxt(text) : format === 'jsonl' ? readJsonl(path, text) : readCsv(path, text);
  return collect(path, format, raw);
}

/** The ledger key of a prompt without an id: `sha256:` + the first 16 hex chars of its hash. */
export function promptKey(prompt: string): string {
  const digest = createHash('sha256').update(normalizePrompt(prompt), 'utf8').digest('hex');
  return `sha256:${digest.slice(0, 16)}`;
}

/** The format of a prompt file, from its extension (case-insensitive). */
export function promptFileFormatOf(path: string): PromptFileFormat {
  const ext = extname(path).toLowerCase();
  const format = PROMPT_FILE_FORMATS.find((f) => `.${f}` === ext);
  if (format !== undefined) return format;
  const accepted = PROMPT_FILE_FORMATS.map((f) => `.${f}`).join(', ');
  const got = ext === '' ? 'has no file extension' : `has unknown extension ${quote(ext)}`;
  throw new UsageError(`${where(path)}: prompt file ${got} (expected one of ${accepted})`);
}

// ---------------------------------------------------------------------------------------

/** An entry as read, before it is keyed. */
export interface RawEntry {
  prompt: string;
  line: number;
  id: string | undefined;
}

/** Trimmed, with CRLF made LF so a prompt's key does not depend on the file's line endings. */
function normalizePrompt(prompt: string): string {
  return prompt.replace(/\r\n/g, '\n').trim();
}

function readTxt(text: string): RawEntry[] {
  const entries: RawEntry[] = [];
  // A line ends at LF, CRLF or a lone CR (a file from an old Mac editor): one prompt a line.
  text.split(/\r\n|\r|\n/).forEach((content, index) => {
    const prompt = content.trim();
    if (prompt === '' || prompt.startsWith('#')) return;
    entries.push({ prompt, line: index + 1, id: undefined });
  });
  return entries;
}

function readJsonl(path: string, text: string): RawEntry[] {
  const entries: RawEntry[] = [];
  text.split('\n').forEach((content, index) => {
    const line = index + 1;
    if (content.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch (cause) {
      throw new UsageError(`${where(path, line)}: invalid JSON: ${quote(content.trim())}`, { cause });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError(`${where(path, line)}: expected a JSON object like {"prompt": "…"}, got ${typeName(value)}`);
    }
    const duplicate = firstDuplicateKey(content);
    if (duplicate) throw new UsageError(`${where(path, line)}: ${describeDuplicateKey(duplicate)}`);
    const record = value as Record<string, unknown>;
    const prompt = record['prompt'];
    if (prompt === undefined) {
      const keys = Object.keys(record);
      const found = keys.length === 0 ? 'no fields' : `fields ${listOf(keys)}`;
      throw new UsageError(`${where(path, line)}: missing "prompt" field (found ${found})`);
    }
    if (typeof prompt !== 'string') {
      throw new UsageError(`${where(path, line)}: "prompt" must be a string, got ${typeName(prompt)}`);
    }
    // Other fields are the user's own (a title, a note) and left alone; but one that looks like
    // a misspelt "id" or "prompt" would silently key the prompt by its text, and an edit of the
    // text would then submit it again.
    for (const key of Object.keys(record)) {
      const meant = misspeltField(key);
      if (meant !== undefined) throw new UsageError(`${where(path, line)}: unknown field ${quote(key)}: did you mean "${meant}"?`);
    }
    const normalized = normalizePrompt(prompt);
    if (normalized === '') throw new UsageError(`${where(path, line)}: empty prompt`);
    entries.push({ prompt: normalized, line, id: jsonId(path, line, record['id']) });
  });
  return entries;
}

/** A JSON `id`: a string or a number; `null` or absent means none. */
function jsonId(path: string, line: number, id: unknown): string | undefined {
  return promptId(where(path, line), id);
}

/**
 * A prompt's `id` as given (`at` names where, for the error): a string (trimmed, not empty)
 * or a safe number; `null` or absent means none.
 */
export function promptId(at: string, id: unknown): string | undefined {
  if (id === undefined || id === null) return undefined;
  if (typeof id === 'string') {
    const trimmed = id.trim();
    if (trimmed === '') throw new UsageError(`${at}: "id" is empty (omit it, or give a value)`);
    return trimmed;
  }
  if (typeof id === 'number') {
    // JSON.parse has already rounded an integer this large (or made 1e400 Infinity), so two
    // ids could collide.
    if (!Number.isFinite(id) || (Number.isInteger(id) && !Number.isSafeInteger(id))) {
      throw new UsageError(`${at}: "id" ${String(id)} is too large for a number; write it as a string`);
    }
    return String(id);
  }
  throw new UsageError(`${at}: "id" must be a string or a number, got ${typeName(id)}`);
}

function readCsv(path: string, text: string): RawEntry[] {
  const parsed = parseCsv(text);
  if (!parsed.ok) throw new UsageError(`${where(path, parsed.line)}: ${parsed.reason}`);
  const records = parsed.records.filter((r) => !isEmptyRecord(r));
  const [header, ...rows] = records;
  if (header === undefined) return [];

  // The reader ends a line at LF (or CRLF) only, so a file of old-Mac lone-CR breaks is all
  // header, whichever column comes first.
  if (header.fields.some((name) => name.includes('\r'))) {
    throw new UsageError(
      `${where(path, header.line)}: its lines end in a lone CR (old Mac line breaks), so the whole file reads as its header: save it with LF or CRLF line breaks`,
    );
  }
  const columns = header.fields.map((name) => name.trim().toLowerCase());
  const promptColumn = columnIndex(path, header, columns, 'prompt');
  if (promptColumn === undefined) {
    const found = header.fields.map((name) => name.trim());
    throw new UsageError(
      `${where(path, header.line)}: the header has no "prompt" column (found columns ${listOf(found)})${separatorHint(found)}`,
    );
  }
  const idColumn = columnIndex(path, header, columns, 'id');

  return rows.map((record) => {
    if (record.fields.length > columns.length) {
      throw new UsageError(
        `${where(path, record.line)}: ${record.fields.length} fields but the header has ${columns.length} columns` +
          ' (quote fields that contain commas)',
      );
    }
    // A short record is read as if the missing trailing fields were empty.
    const prompt = normalizePrompt(record.fields[promptColumn] ?? '');
    if (prompt === '') throw new UsageError(`${where(path, record.line)}: empty prompt`);
    const id = idColumn === undefined ? '' : (record.fields[idColumn] ?? '').trim();
    return { prompt, line: record.line, id: id === '' ? undefined : id };
  });
}

/** Spreadsheets in many locales export `;`- or tab-separated "CSV": say so rather than only list one odd column. */
function separatorHint(columns: string[]): string {
  const [only] = columns;
  if (columns.length !== 1 || only === undefined || !/prompt/i.test(only)) return '';
  if (only.includes(';')) return '; the file looks semicolon-separated, save it with commas';
  if (only.includes('\t')) return '; the file looks tab-separated, save it with commas';
  return '';
}

function columnIndex(path: string, header: CsvRecord, columns: string[], name: string): number | undefined {
  const first = columns.indexOf(name);
  if (first === -1) return undefined;
  if (columns.indexOf(name, first + 1) !== -1) {
    throw new UsageError(`${where(path, header.line)}: the header has more than one "${name}" column`);
  }
  return first;
}

/** Blank lines and spreadsheet filler rows like `,,` are skipped. */
function isEmptyRecord(record: CsvRecord): boolean {
  return record.fields.every((field) => field.trim() === '');
}

/** Keys entries, keeps the first of each key, and refuses an id reused for another prompt. */
/** Keys the entries and drops exact duplicates (a key reused for another prompt is refused). */
export function collect(path: string, format: PromptFileFormat, raw: RawEntry[]): PromptFile {
  const entries: PromptEntry[] = [];
  const warnings: string[] = [];
  const byKey = new Map<string, PromptEntry>();
  for (const { prompt, line, id } of raw) {
    for (const [field, value] of [['prompt', prompt], ['id', id]] as const) {
      // A key file given as the prompt file: the key would go to the agent (and show in a dry run).
      if (value !== undefined && isKeyShaped(value)) {
        throw new UsageError(`${where(path, line)}: the ${field} is shaped like an API key (mint_…); refused, not shown`);
      }
      if (value !== undefined && !isWellFormed(value)) {
        throw new UsageError(`${where(path, line)}: the ${field} ${quote(value)} holds a lone surrogate escape (\\ud800-\\udfff without its pair), which is no character`);
      }
    }
    const key = id ?? promptKey(prompt);
    const earlier = byKey.get(key);
    if (earlier !== undefined) {
      if (earlier.prompt !== prompt) {
        const what = id === undefined ? `key ${key}` : `id ${quote(id)}`;
        throw new UsageError(`${where(path, line)}: ${what} is already used on line ${earlier.line} for a different prompt`);
      }
      warnings.push(`${where(path, line)}: duplicate of line ${earlier.line}, submitted once`);
      continue;
    }
    const entry: PromptEntry = id === undefined ? { key, prompt, line } : { key, prompt, line, id };
    byKey.set(key, entry);
    entries.push(entry);
  }
  if (entries.length === 0) {
    const hint = format === 'txt' ? ' (only blank lines and # comments)' : format === 'csv' ? ' (expected a header row and at least one row)' : '';
    throw new UsageError(`${where(path)}: no prompts found${hint}`);
  }
  return { path, format, entries, warnings };
}

// ---------------------------------------------------------------------------------------

/** The line of `text` that character `index` is on (a line ends at LF, and with `crEndsLine` at a lone CR too). */
function lineAt(text: string, index: number, crEndsLine: boolean): number {
  return text.slice(0, index).split(crEndsLine ? /\r\n|\r|\n/ : '\n').length;
}

const QUOTE_MAX = 40;

/** User text inside a message: shortened, quoted, and escaped so it cannot break the line. */
function quote(text: string): string {
  const chars = Array.from(text);
  const short = chars.length > QUOTE_MAX ? `${chars.slice(0, QUOTE_MAX).join('')}…` : text;
  return JSON.stringify(short).replace(/[\u0085\u2028\u2029]/g, (c) => escapeChar(c));
}

function listOf(names: string[]): string {
  const shown = names.slice(0, 8).map((n) => quote(n));
  return names.length > shown.length ? `${shown.join(', ')}, …` : shown.join(', ');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function describeReadError(cause: unknown): string {
  const code = cause instanceof Error && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory, not a prompt file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return `cannot read the file (${code ?? 'unknown error'})`;
  }
}
