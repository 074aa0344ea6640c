import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { lastRange, parseLast, resolveRange } from '../../src/extract/relative-range.js';
import { planWindows, type Grain } from '../../src/extract/windows.js';

// Wednesday 2026-03-11, mid-morning UTC.
const NOW = Date.parse('2026-03-11T09:30:00Z');

describe('--last', () => {
  const cases: { last: string; grain: Grain; from: string; to: string; windows: number }[] = [
    { last: '7d', grain: 'day', from: '2026-03-04', to: '2026-03-11', windows: 7 },
    { last: '1d', grain: 'day', from: '2026-03-10', to: '2026-03-11', windows: 1 },
    { last: '4w', grain: 'day', from: '2026-02-11', to: '2026-03-11', windows: 28 },
    { last: '3m', grain: 'day', from: '2025-12-11', to: '2026-03-11', windows: 90 },
    // Weeks end at the Monday on or before today: the running week is left out.
    { last: '4w', grain: 'week', from: '2026-02-09', to: '2026-03-09', windows: 4 },
    { last: '7d', grain: 'week', from: '2026-03-02', to: '2026-03-09', windows: 1 },
    // 10 days back from Monday 03-09 is Friday 02-27: aligned down, two whole weeks.
    { last: '10d', grain: 'week', from: '2026-02-23', to: '2026-03-09', windows: 2 },
    { last: '3m', grain: 'month', from: '2025-12-01', to: '2026-03-01', windows: 3 },
    { last: '30d', grain: 'month', from: '2026-01-01', to: '2026-03-01', windows: 2 },
    { last: '30d', grain: 'range', from: '2026-02-09', to: '2026-03-11', windows: 1 },
  ];
  it.each(cases)('$last with $grain windows is [$from, $to)', ({ last, grain, from, to, windows }) => {
    const range = lastRange(parseLast(last), grain, NOW);
    expect(range).toEqual({ from, to });
    // Always whole windows of the grain.
    expect(planWindows(range.from, range.to, grain)).toHaveLength(windows);
  });

  it('on a Monday, the last whole week is the one that ended today', () => {
    expect(lastRange(parseLast('1w'), 'week', Date.parse('2026-03-09T00:00:00Z'))).toEqual({ from: '2026-03-02', to: '2026-03-09' });
  });

  it.each(['7', 'd7', '7y', '0d', '-3d', '7 d', '1.5w', '', '12345d'])('refuses %j, naming it', (value) => {
    expect(() => parseLast(value)).toThrow(UsageError);
    expect(() => parseLast(value)).toThrow(`invalid --last '${value}'`);
  });
});

describe('resolveRange', () => {
  it('takes --from/--to as given', () => {
    expect(resolveRange({ from: '2026-01-01', to: '2026-02-01' }, 'day', NOW)).toEqual({ from: '2026-01-01', to: '2026-02-01' });
  });
  it('takes --last, and says so', () => {
    expect(resolveRange({ last: '7d' }, 'day', NOW)).toEqual({ from: '2026-03-04', to: '2026-03-11', last: '7d' });
  });
  it('falls back to the default --last when given none', () => {
    expect(resolveRange({}, 'day', NOW, '30d')).toEqual({ from: '2026-02-09', to: '2026-03-11', last: '30d' });
  });
  it.each([
    [{ last: '7d', from: '2026-01-01' }, /either --last 7d or --from\/--to/],
    [{ from: '2026-01-01' }, /--from 2026-01-01 needs --to/],
    [{ to: '2026-01-01' }, /--to 2026-01-01 needs --from/],
    [{}, /give a range/],
  ])('refuses %j', (args, message) => {
    expect(() => resolveRange(args, 'day', NOW)).toThrow(UsageError);
    expect(() => resolveRange(args, 'day', NOW)).toThrow(message);
  });
});
