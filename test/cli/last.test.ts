/** `export --last`: a range relative to today, in whole windows, named in the output. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { logLines, startHarness, summaryOf, type Harness } from './harness.js';

// Tuesday 2026-03-10.
const NOW = '2026-03-10T06:00:00Z';

async function windows(h: Harness): Promise<string[]> {
  const db = await Database.open(h.db, { readOnly: true });
  try {
    const rows = await db.all(`SELECT strftime(window_start, '%Y-%m-%d') || '/' || strftime(window_end, '%Y-%m-%d') AS w FROM loaded_windows ORDER BY window_start`);
    return rows.map((r) => String(r.w));
  } finally {
    await db.close();
  }
}

describe('export --last', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 20 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('--last 7d: the seven days before today, and the range in the log', async () => {
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--last', '7d']);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsPlanned: 7, windowsLoaded: 7 });
    expect(logLines(result).find((l) => l.event === 'range')).toMatchObject({ last: '7d', from: '2026-03-03', to: '2026-03-10', window: 'day', windows: 7 });
    const loaded = await windows(h);
    expect(loaded[0]).toBe('2026-03-03/2026-03-04');
    expect(loaded.at(-1)).toBe('2026-03-09/2026-03-10');
    expect(h.requests('dateFrom=2026-03-10')).toBe(0); // today is not asked for
  });

  it('--last 2w --window week: the two whole ISO weeks before this one', async () => {
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--last', '2w', '--window', 'week']);
    expect(result.code, result.stderr).toBe(0);
    expect(await windows(h)).toEqual(['2026-02-23/2026-03-02', '2026-03-02/2026-03-09']);
  });

  it.each([
    [['--last', '7d', '--from', '2026-03-01', '--to', '2026-03-05'], /either --last 7d or --from\/--to/],
    [['--last', 'week'], /invalid --last 'week'/],
    [[], /give a range: --from DATE --to DATE, or --last/],
  ])('refuses %j with exit 2 and no request', async (args, message) => {
    const result = await h.run(['export', 'visitors', '--project', 'docs', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(h.requests()).toBe(0);
  });
});
