/**
 * A database built the way a user builds one: the real CLI exporting from the sandbox over
 * HTTP, with a fake clock. Tuesday 2026-03-10, 06:00 UTC:
 * - daily visitors and views from 2026-02-01 up to and including today (today is partial);
 * - weekly windows from Monday 02-02 to the running week 03-09..03-16 (partial), with the
 *   week of 02-16 left out on purpose;
 * - the month of February;
 * - a batch of agent jobs with every outcome.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Database, type Row } from '../../src/load/database.js';
import { startHarness, type Harness } from './harness.js';

export const FIXTURE_NOW = '2026-03-10T06:00:00Z';
export const PROJECT = 'docs';
export const MISSING_WEEK = '2026-02-16';

const PROMPTS = [
  'Add a troubleshooting section to /quickstart [pr]',
  'Document the rate limits [pr]',
  'Confirm /installation needs no change [nopr]',
  'Rewrite the migration guide [fail]',
  'Retire the old changelog page [archive]',
];

async function ok(h: Harness, args: string[]): Promise<void> {
  const result = await h.run([...args, '--project', PROJECT, '--requests-per-hour', '100000']);
  expect(result.stderr.split('\n').filter((l) => l.includes('"level":"error"'))).toEqual([]);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
}

export async function buildFixture(options: { paths?: number; jobs?: boolean } = {}): Promise<Harness> {
  const h = await startHarness(FIXTURE_NOW, { site: { paths: options.paths ?? 300 }, jobs: { pollsToFinish: 1 } });
  for (const metric of ['visitors', 'views']) {
    await ok(h, ['export', metric, '--from', '2026-02-01', '--to', '2026-03-11']);
    await ok(h, ['export', metric, '--from', '2026-02-02', '--to', MISSING_WEEK, '--window', 'week']);
    await ok(h, ['export', metric, '--from', '2026-02-23', '--to', '2026-03-16', '--window', 'week']);
    await ok(h, ['export', metric, '--from', '2026-02-01', '--to', '2026-03-01', '--window', 'month']);
  }
  if (options.jobs !== false) {
    const file = join(h.dir, 'prompts.txt');
    writeFileSync(file, PROMPTS.join('\n') + '\n');
    await ok(h, ['jobs', 'submit', file, '--poll-interval', '0.1']);
  }
  return h;
}

/** Reads the database read-only, as an analyst would. */
export async function select<T extends Row = Row>(h: Harness, sql: string): Promise<T[]> {
  const db = await Database.open(h.db, { readOnly: true });
  try {
    return await db.all<T>(sql);
  } finally {
    await db.close();
  }
}

/** Runs a file of sql/queries through `docpipe query --format json`. */
export async function runQueryFile(h: Harness, name: string): Promise<Record<string, unknown>[]> {
  const result = await h.run(['query', '--file', `sql/queries/${name}`, '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
