import { describe, expect, it } from 'vitest';
import { copyGroups, inScope, monthSpan, parsePartitionDir, type CopyGroup, type PartitionSize } from '../../src/dump/plan-dump.js';

const monthOf = (s: PartitionSize): string => `${s.year}-${String(s.month).padStart(2, '0')}-01`;

describe('dump planner', () => {
  it('copies partitions in groups of at most so many partitions and rows; a project is split by months only when it must be', () => {
    const months = (projectId: string, n: number, rows = 10, year = 2024) =>
      Array.from({ length: n }, (_, i) => ({ projectId, year: year + Math.floor(i / 12), month: (i % 12) + 1, rows }));
    const sizes = [...months('a', 50), ...months('b', 60), ...months('c', 20), ...months('d', 300), ...months('e', 1), ...months('f', 119)];
    const groups = copyGroups(sizes, 120, 1_000_000);
    // Every partition in one group, once; 120 at most a group.
    const count = (g: CopyGroup): number =>
      g.whole.reduce((n, p) => n + sizes.filter((s) => s.projectId === p).length, 0) +
      g.parts.reduce((n, p) => n + sizes.filter((s) => s.projectId === p.projectId && monthOf(s) >= p.from && monthOf(s) < p.to).length, 0);
    expect(groups.map(count)).toEqual([120, 120, 120, 120, 70]);
    expect(groups[0]).toEqual({ whole: ['a', 'b'], parts: [{ projectId: 'c', from: '2024-01-01', to: '2024-11-01' }] });
    expect(groups[1]).toEqual({ whole: [], parts: [{ projectId: 'c', from: '2024-11-01', to: '2025-09-01' }, { projectId: 'd', from: '2024-01-01', to: '2033-03-01' }] });
    expect(groups[3]).toEqual({ whole: ['e'], parts: [{ projectId: 'd', from: '2043-03-01', to: '2049-01-01' }, { projectId: 'f', from: '2024-01-01', to: '2028-02-01' }] });
    expect(groups[4]).toEqual({ whole: [], parts: [{ projectId: 'f', from: '2028-02-01', to: '2033-12-01' }] });
    expect(copyGroups([], 120, 1_000_000)).toEqual([]);
    expect(copyGroups(sizes, 1000, 1_000_000)).toEqual([{ whole: ['a', 'b', 'c', 'd', 'e', 'f'], parts: [] }]);

    // Rows: three years of months of 180,000 rows, five months a COPY (the 36th alone); a month larger than the cap alone.
    const big = [...months('docs', 36, 180_000), { projectId: 'huge', year: 2026, month: 1, rows: 2_000_000 }, ...months('small', 2)];
    const byRows = copyGroups(big, 120, 1_000_000);
    expect(byRows.map((g) => g.parts.map((p) => `${p.projectId} ${p.from}..${p.to}`).concat(g.whole))).toEqual([
      ['docs 2024-01-01..2024-06-01'],
      ['docs 2024-06-01..2024-11-01'],
      ['docs 2024-11-01..2025-04-01'],
      ['docs 2025-04-01..2025-09-01'],
      ['docs 2025-09-01..2026-02-01'],
      ['docs 2026-02-01..2026-07-01'],
      ['docs 2026-07-01..2026-12-01'],
      ['docs 2026-12-01..2027-01-01'],
      ['huge'],
      ['small'],
    ]);
    // A project with rows that have no month is never split.
    const undated = [...months('jobs', 10, 200_000), { projectId: 'jobs', year: null, month: null, rows: 1 }];
    expect(copyGroups(undated, 120, 1_000_000)).toEqual([{ whole: ['jobs'], parts: [] }]);
  });

  it.each([
    [{ from: '2026-03-03', to: '2026-03-10' }, { from: '2026-03-01', to: '2026-04-01' }],
    [{ from: '2026-02-25', to: '2026-03-01' }, { from: '2026-02-01', to: '2026-03-01' }],
    [{ from: '2025-12-31', to: '2026-01-02' }, { from: '2025-12-01', to: '2026-02-01' }],
  ])('monthSpan(%j) is the whole months %j', (range, span) => {
    expect(monthSpan(range)).toEqual(span);
  });

  it('a partition is in scope by project and by month', () => {
    const march = { projectId: 'docs', year: 2026, month: 3 };
    const feb = { projectId: 'docs', year: 2026, month: 2 };
    expect(inScope(march, { projects: [] })).toBe(true);
    expect(inScope(march, { projects: ['other'] })).toBe(false);
    expect(inScope(march, { projects: [], range: { from: '2026-03-03', to: '2026-03-10' } })).toBe(true);
    expect(inScope(feb, { projects: [], range: { from: '2026-03-03', to: '2026-03-10' } })).toBe(false);
    expect(inScope(feb, { projects: ['docs'], range: { from: '2026-02-28', to: '2026-03-10' } })).toBe(true);
  });

  it('reads hive folder names as DuckDB writes them', () => {
    expect(parsePartitionDir('project_id=other%20docs%2F2', 'project_id')).toBe('other docs/2');
    expect(parsePartitionDir('year=2026', 'project_id')).toBeUndefined();
    expect(parsePartitionDir('project_id=%E0%A4%A', 'project_id')).toBeUndefined();
  });
});
