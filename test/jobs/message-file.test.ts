import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { LedgerRow } from '../../src/jobs/ledger.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageKey, parseMessageFile, readMessageFile, resolveMessages } from '../../src/jobs/message-file.js';

function ledgerRow(promptKey: string, jobId: string | null, status = 'completed'): LedgerRow {
  return {
    projectId: 'docs', promptKey, prompt: 'p', jobId, status, model: null, repository: null, ref: null, prLink: null,
    createdAt: null, archivedAt: null, submittedAt: null, finishedAt: null, error: null, sourceFile: null, attempts: 1, polls: 1,
    postStarted: false, flags: null,
  };
}

describe('message files', () => {
  it('a null id is no id, as in prompt files; a surrogate pair is a character', () => {
    expect(parseMessageFile('m.jsonl', '{"jobId": "j", "prompt": "ship \\ud83d\\ude80", "id": null}')).toEqual([{ line: 1, jobId: 'j', prompt: 'ship 🚀' }]);
  });

  it('parses jobId and promptKey lines, trims prompts, keeps ids, skips blank lines', () => {
    const text = '\uFEFF{"jobId": "job_1", "prompt": "  Add a FAQ\\r\\nplease "}\n\n{"promptKey": "fix-1", "prompt": "Retry", "id": 7}\n';
    expect(parseMessageFile('m.jsonl', text)).toEqual([
      { line: 1, jobId: 'job_1', prompt: 'Add a FAQ\nplease' },
      { line: 3, promptKey: 'fix-1', prompt: 'Retry', id: '7' },
    ]);
  });

  it.each([
    ['', 'm.jsonl: no messages found'],
    ['[1]', 'm.jsonl:1: expected a JSON object like {"jobId": "…", "prompt": "…"}'],
    ['{"jobId": "j", "prompt": 3}', 'm.jsonl:1: "prompt" must be a string'],
    ['{"jobId": "j", "prompt": "x", "id": ""}', 'm.jsonl:1: "id" is empty (omit it, or give a value)'],
    // JSON has rounded these: two messages' ids would collide, and the second would not be sent.
    ['{"jobId": "j", "prompt": "x", "id": 12345678901234567891}', 'm.jsonl:1: "id" 12345678901234567000 is too large for a number; write it as a string'],
    ['{"jobId": "j", "prompt": "x", "id": 1e400}', 'm.jsonl:1: "id" Infinity is too large for a number; write it as a string'],
    // No character: DuckDB stores U+FFFD, and the message would never match its ledger row.
    ['{"jobId": "j", "prompt": "follow \\ud800 up"}', 'm.jsonl:1: "prompt" holds a lone surrogate escape (\\ud800-\\udfff without its pair), which is no character'],
    ['{"jobId": "j", "prompt": "x", "id": "a\\udfff"}', 'm.jsonl:1: "id" holds a lone surrogate escape (\\ud800-\\udfff without its pair), which is no character'],
  ])('refuses %j', (text, message) => {
    expect(() => parseMessageFile('m.jsonl', text)).toThrow(new UsageError(message));
  });

  it('resolves jobs from the ledger, keys messages by job and text, and drops exact duplicates', () => {
    const ledger = [ledgerRow('fix-1', 'job_1'), ledgerRow('fix-2', null, 'unknown')];
    const { entries, warnings } = resolveMessages('m.jsonl', [
      { line: 1, promptKey: 'fix-1', prompt: 'Retry' },
      { line: 2, jobId: 'job_1', prompt: 'Retry' },
      { line: 3, jobId: 'job_9', prompt: 'Retry' },
    ], ledger);
    expect(entries).toEqual([
      { key: messageKey('job_1', 'Retry'), jobId: 'job_1', promptKey: 'fix-1', prompt: 'Retry', line: 1 },
      { key: messageKey('job_9', 'Retry'), jobId: 'job_9', promptKey: null, prompt: 'Retry', line: 3 },
    ]);
    expect(warnings).toEqual(['m.jsonl:2: duplicate of line 1, sent once']);
    expect(messageKey('job_1', 'Retry')).not.toBe(messageKey('job_9', 'Retry'));
    expect(() => resolveMessages('m.jsonl', [{ line: 4, promptKey: 'fix-2', prompt: 'x' }], ledger)).toThrow(
      new UsageError("m.jsonl:4: prompt key 'fix-2' has no job id (status unknown)"),
    );
    // A job id a URL would resolve away names no job.
    for (const jobId of ['..', '.']) {
      expect(() => resolveMessages('command line', [{ line: 1, jobId, prompt: 'x' }], ledger)).toThrow(
        new UsageError(`command line:1: invalid job id '${jobId}': expected the id of a job (jobs list shows them)`),
      );
    }
    expect(() =>
      resolveMessages('m.jsonl', [{ line: 1, jobId: 'job_1', prompt: 'a', id: 'same' }, { line: 2, jobId: 'job_1', prompt: 'b', id: 'same' }], ledger),
    ).toThrow(new UsageError("m.jsonl:2: id 'same' is already used on line 1 for another message"));
  });

  it('takes a prompt key given as the job (the key jobs list shows) for that prompt\'s job', () => {
    const ledger = [ledgerRow('sha256:2d2854b26c6dee2b', 'job_7'), ledgerRow('fix-2', null, 'unknown')];
    const { entries } = resolveMessages('command line', [{ line: 1, jobId: 'sha256:2d2854b26c6dee2b', prompt: 'Also fix the title' }], ledger);
    expect(entries).toMatchObject([{ jobId: 'job_7', promptKey: 'sha256:2d2854b26c6dee2b' }]);
    // A key whose prompt has no job is refused (exit 2), not sent to the API as a job id.
    expect(() => resolveMessages('command line', [{ line: 1, jobId: 'fix-2', prompt: 'x' }], ledger)).toThrow(/prompt key 'fix-2' has no job id/);
  });

  it('a file that is not UTF-8 is refused naming its line, not sent with replacement characters; a BOM is dropped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docpipe-messages-'));
    try {
      const latin1 = join(dir, 'latin1.jsonl');
      writeFileSync(latin1, Buffer.concat([Buffer.from('{"jobId":"job_1","prompt":"ok"}\n{"jobId":"job_1","prompt":"Mettre '), Buffer.from([0xe0]), Buffer.from(' jour"}\n')]));
      await expect(readMessageFile(latin1)).rejects.toThrow(new UsageError(`${latin1}:2: is not valid UTF-8 (save the file as UTF-8)`));
      const bom = join(dir, 'bom.jsonl');
      writeFileSync(bom, '\ufeff{"jobId":"job_1","prompt":"Mettre à jour"}\n');
      expect(await readMessageFile(bom)).toMatchObject([{ jobId: 'job_1', prompt: 'Mettre à jour' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
