/**
 * Writes a full disk cuts short (here a file size limit, `ulimit -f`, in a child process: the
 * write that crosses it comes back short, the next one fails): the spool's page, the request
 * journal's line and any appended text are on disk whole or not at all, and the caller hears
 * of it, so that no request goes out after a page that is not on disk (DESIGN rule 9).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const DIST = resolve('dist');
const SCRIPT = resolve('test/fixtures/short-writes.mjs');

describe('short writes (a full disk)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-short-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leave no torn page or journal line, and throw', () => {
    // 8 KiB a file.
    const run = spawnSync('bash', ['-c', `ulimit -f 8 && exec "${process.execPath}" "${SCRIPT}" "${DIST}" "${dir}"`], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(result).toMatchObject({
      // The second write crossed the limit: taken back, its error thrown.
      plain: { first: null, second: 'EFBIG', size: 5000 },
      journalError: 'EFBIG',
      walkError: 'EFBIG',
      atomicError: 'EFBIG',
      takeError: null,
      leftInDir: [],
    });
    // Every start line the journal took is there whole, and only those.
    expect(result.begun).toBeGreaterThan(10);
    expect(result.journalLines).toBe(result.begun);
    expect(result.journalParsed).toBe(result.begun);
    // Every page the walk took is read back, and nothing more.
    expect(result.pages).toBeGreaterThan(3);
    expect(result.recovered).toBe(result.pages);
  });

  it('a database file whose checkpoint met the limit opens again in the same process (the next write\'s), with every commit in it', () => {
    // 4 MB a file.
    const run = spawnSync('bash', ['-c', `ulimit -f 4000 && exec "${process.execPath}" "${SCRIPT}" "${DIST}" "${dir}" checkpoint`], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim()) as { commits: number; writeError: string | null; reopened: number | string };
    expect(result.commits).toBeGreaterThan(3);
    expect(result.writeError).toMatch(/checkpoint failed/i);
    // Before, the file stayed attached, invalidated: "Unique file handle conflict ... already attached".
    expect(result.reopened).toBeTypeOf('number');
    expect(result.reopened).toBeGreaterThanOrEqual(result.commits * 3000);
  });

  it('a claim that cannot be written is this run\'s failure, not another run\'s claim, and leaves no empty claim', () => {
    // Taken for a live claim, every window was "walked by another run" and skipped.
    const run = spawnSync('bash', ['-c', `ulimit -f 0 && exec "${process.execPath}" "${SCRIPT}" "${DIST}" "${dir}" claims`], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toEqual({ claimError: 'EFBIG', left: [] });
  });
});
