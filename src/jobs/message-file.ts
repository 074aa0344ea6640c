/**
 * Follow-up messages as `docpipe jobs message` takes them: one on the command line, or a
 * `.jsonl` file of `{"jobId"|"promptKey": …, "prompt": …, "id"?: …}` lines. Pure except for
 * reading the file. Each message gets a key (its `id`, else a hash of its job and text) that
 * the message ledger uses to send it once across runs.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { LedgerRow } from './ledger.js';
import { usableJobId } from '../api/schemas.js';
import { describeDuplicateKey, firstDuplicateKey } from '../core/json-keys.js';
import { decodeUtf8, isWellFormed } from '../core/text-file.js';
import { promptId } from './prompt-files.js';

/** A message as asked for: its job by API id or by the prompt key of the job ledger. */
export interface MessageRequest {
  /** 1-based line in the file (1 on the command line). */
  line: number;
  jobId?: string;
  promptKey?: string;
  prompt: string;
  id?: string;
}

/** A message ready to send: its job resolved. */
export interface MessageEntry {
  key: string;
  jobId: string;
  /** The job's row in the job ledger, when it has one. */
  promptKey: string | null;
  prompt: string;
  line: number;
}

const FIELDS = ['jobId', 'promptKey', 'prompt', 'id'];

/** The key of a message without an id: `sha256:` and 16 hex digits of its job id and text. */
export function messageKey(jobId: string, prompt: string): string {
  return `sha256:${createHash('sha256').update(`${jobId}\n${prompt}`, 'utf8').digest('hex').slice(0, 16)}`;
}

function text(value: unknown, where: string, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && field !== 'prompt') return String(value);
  if (typeof value !== 'string') throw new UsageError(`${where}: "${field}" must be a string`);
  return wellFormed(value.replace(/\r\n/g, '\n').trim(), where, field);
}

/** The text, unless it holds a lone surrogate (see isWellFormed): such a message would never match its ledger row. */
function wellFormed(value: string, where: string, field: string): string {
  if (isWellFormed(value)) return value;
  throw new UsageError(`${where}: "${field}" holds a lone surrogate escape (\\ud800-\\udfff without its pair), which is no character`);
}

export function parseMessageFile(path: string, content: string): MessageRequest[] {
  const requests: MessageRequest[] = [];
  content
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((raw, index) => {
      const line = index + 1;
      const where = `${path}:${line}`;
      if (raw.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (cause) {
        throw new UsageError(`${where}: invalid JSON: '${raw.trim().slice(0, 60)}'`, { cause });
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new UsageError(`${where}: expected a JSON object like {"jobId": "…", "prompt": "…"}`);
      }
      const duplicate = firstDuplicateKey(raw);
      if (duplicate) throw new UsageError(`${where}: ${describeDuplicateKey(duplicate)}`);
      const record = value as Record<string, unknown>;
      const unknown = Object.keys(record).filter((k) => !FIELDS.includes(k));
      if (unknown.length > 0) throw new UsageError(`${where}: unknown field "${unknown[0]}" (expected jobId or promptKey, prompt, and optionally id)`);
      const jobId = text(record.jobId, where, 'jobId');
      const promptKey = text(record.promptKey, where, 'promptKey');
      const prompt = text(record.prompt, where, 'prompt');
      // As a prompt's id: a string, or a number that JSON did not round (null: none).
      const given = promptId(where, record.id);
      const id = given === undefined ? undefined : wellFormed(given, where, 'id');
      if (!prompt) throw new UsageError(`${where}: missing or empty "prompt"`);
      if ((jobId ? 1 : 0) + (promptKey ? 1 : 0) !== 1) throw new UsageError(`${where}: give exactly one of "jobId" and "promptKey"`);
      requests.push({ line, prompt, ...(jobId ? { jobId } : {}), ...(promptKey ? { promptKey } : {}), ...(id ? { id } : {}) });
    });
  if (requests.length === 0) throw new UsageError(`${path}: no messages found`);
  return requests;
}

export async function readMessageFile(path: string): Promise<MessageRequest[]> {
  if (extname(path).toLowerCase() !== '.jsonl') throw new UsageError(`${path}: a message file is .jsonl (one {"jobId"|"promptKey", "prompt"} a line)`);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw new UsageError(`cannot read message file '${path}'`, { cause });
  }
  // Bytes that are not UTF-8 would be sent as replacement characters: refused, as in prompt files.
  return parseMessageFile(path, decodeUtf8(path, bytes));
}

/**
 * Resolves each message's job against the job ledger of its project: a prompt key must name
 * a submitted job; a job id need not be in the ledger (a job made elsewhere). Exact
 * duplicates are dropped with a warning; a key reused for another message is refused.
 */
export function resolveMessages(
  label: string,
  requests: readonly MessageRequest[],
  ledger: readonly LedgerRow[],
): { entries: MessageEntry[]; warnings: string[] } {
  const byPromptKey = new Map(ledger.map((r) => [r.promptKey, r]));
  const byJobId = new Map(ledger.filter((r) => r.jobId !== null).map((r) => [r.jobId as string, r]));
  const entries: MessageEntry[] = [];
  const warnings: string[] = [];
  const byKey = new Map<string, MessageEntry>();
  for (const request of requests) {
    const where = `${label}:${request.line}`;
    let jobId: string;
    let promptKey: string | null;
    // A job named by its prompt's key (the key `jobs list` shows) is that prompt's job.
    const asKey = request.promptKey ?? (request.jobId !== undefined && !byJobId.has(request.jobId) && byPromptKey.has(request.jobId) ? request.jobId : undefined);
    if (asKey !== undefined) {
      const row = byPromptKey.get(asKey);
      if (!row) throw new UsageError(`${where}: no job in the ledger with prompt key '${asKey}'`);
      if (row.jobId === null || !usableJobId(row.jobId)) throw new UsageError(`${where}: prompt key '${asKey}' has no job id (status ${row.status})`);
      jobId = row.jobId;
      promptKey = row.promptKey;
    } else {
      jobId = request.jobId as string;
      if (!usableJobId(jobId)) throw new UsageError(`${where}: invalid job id '${jobId}': expected the id of a job (jobs list shows them)`);
      promptKey = byJobId.get(jobId)?.promptKey ?? null;
    }
    const key = request.id ?? messageKey(jobId, request.prompt);
    const earlier = byKey.get(key);
    if (earlier) {
      if (earlier.prompt !== request.prompt || earlier.jobId !== jobId) {
        throw new UsageError(`${where}: ${request.id === undefined ? `key ${key}` : `id '${request.id}'`} is already used on line ${earlier.line} for another message`);
      }
      warnings.push(`${where}: duplicate of line ${earlier.line}, sent once`);
      continue;
    }
    const entry: MessageEntry = { key, jobId, promptKey, prompt: request.prompt, line: request.line };
    byKey.set(key, entry);
    entries.push(entry);
  }
  return { entries, warnings };
}
