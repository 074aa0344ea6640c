import { describe, expect, it } from 'vitest';
import { copyGroups, inScope, monthSpan, parsePartitionDir } from '../../src/dump/plan-dump.js';

describe('dump planner', () => {
  it('copies projects in groups of at most so many partitions; a project with more goes alone', () => {
    const sizes = [['a', 50], ['b', 60], ['c', 20], ['d', 300], ['e', 1], ['f', 119]].map(([projectId, partitions]) => ({ projectId: String(projectId), partitions: Number(partitions) }));
    expect(copyGroups(sizes, 120)).toEqual([['a', 'b'], ['c'], ['d'], ['e', 'f']]);
    expect(copyGroups([], 120)).toEqual([]);
    expect(copyGroups(sizes, 1000)).toEqual([['a', 'b', 'c', 'd', 'e', 'f']]);
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
