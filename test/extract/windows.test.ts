import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { Window } from '../../src/core/domain.js';
import { addDays, planWindows, utcToday, windowDays, type Grain } from '../../src/extract/windows.js';

/** Every day of [from, to) appears in exactly one window, in order. */
function expectPartition(windows: Window[], from: string, to: string): void {
  expect(windows[0]?.start).toBe(from);
  expect(windows.at(-1)?.end).toBe(to);
  for (let i = 1; i < windows.length; i++) {
    expect(windows[i]?.start).toBe(windows[i - 1]?.end);
  }
  const days = windows.reduce((n, w) => n + windowDays(w), 0);
  const expected = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
  expect(days).toBe(expected);
}

describe('planWindows', () => {
  const cases: { name: string; from: string; to: string; grain: Grain; windows: number; first: Window; last: Window }[] = [
    { name: 'one day', from: '2026-03-01', to: '2026-03-02', grain: 'day', windows: 1, first: { start: '2026-03-01', end: '2026-03-02' }, last: { start: '2026-03-01', end: '2026-03-02' } },
    { name: 'days across a year end', from: '2025-12-30', to: '2026-01-02', grain: 'day', windows: 3, first: { start: '2025-12-30', end: '2025-12-31' }, last: { start: '2026-01-01', end: '2026-01-02' } },
    { name: 'leap day', from: '2024-02-28', to: '2024-03-01', grain: 'day', windows: 2, first: { start: '2024-02-28', end: '2024-02-29' }, last: { start: '2024-02-29', end: '2024-03-01' } },
    { name: 'no leap day in 2025', from: '2025-02-28', to: '2025-03-01', grain: 'day', windows: 1, first: { start: '2025-02-28', end: '2025-03-01' }, last: { start: '2025-02-28', end: '2025-03-01' } },
    { name: 'weeks across a year end', from: '2025-12-29', to: '2026-01-12', grain: 'week', windows: 2, first: { start: '2025-12-29', end: '2026-01-05' }, last: { start: '2026-01-05', end: '2026-01-12' } },
    { name: 'months with a leap February', from: '2024-01-01', to: '2024-04-01', grain: 'month', windows: 3, first: { start: '2024-01-01', end: '2024-02-01' }, last: { start: '2024-03-01', end: '2024-04-01' } },
    { name: 'months across a year end', from: '2025-11-01', to: '2026-02-01', grain: 'month', windows: 3, first: { start: '2025-11-01', end: '2025-12-01' }, last: { start: '2026-01-01', end: '2026-02-01' } },
    { name: 'range is one window', from: '2026-01-03', to: '2026-02-17', grain: 'range', windows: 1, first: { start: '2026-01-03', end: '2026-02-17' }, last: { start: '2026-01-03', end: '2026-02-17' } },
  ];
  it.each(cases)('$name', ({ from, to, grain, windows, first, last }) => {
    const planned = planWindows(from, to, grain);
    expect(planned).toHaveLength(windows);
    expect(planned[0]).toEqual(first);
    expect(planned.at(-1)).toEqual(last);
    expectPartition(planned, from, to);
  });

  it('never includes the exclusive end day', () => {
    const planned = planWindows('2026-02-01', '2026-03-01', 'day');
    expect(planned).toHaveLength(28);
    expect(planned.some((w) => w.start === '2026-03-01')).toBe(false);
    expectPartition(planned, '2026-02-01', '2026-03-01');
  });

  it.each([
    ['week', '2026-01-07', '2026-01-19', /--from 2026-01-07 .*nearest are 2026-01-05 and 2026-01-12/],
    ['week', '2026-01-05', '2026-01-14', /--to 2026-01-14 .*nearest are 2026-01-12 and 2026-01-19/],
    ['month', '2026-01-15', '2026-03-01', /--from 2026-01-15 .*nearest are 2026-01-01 and 2026-02-01/],
    ['month', '2024-01-01', '2024-02-29', /--to 2024-02-29 .*nearest are 2024-02-01 and 2024-03-01/],
  ] as const)('rejects a %s range off its boundaries (%s..%s)', (grain, from, to, message) => {
    expect(() => planWindows(from, to, grain)).toThrow(UsageError);
    expect(() => planWindows(from, to, grain)).toThrow(message);
  });

  it.each([
    ['2026-02-30', '2026-03-05', /invalid --from '2026-02-30'/],
    ['2026-1-5', '2026-03-05', /invalid --from '2026-1-5'/],
    ['2026-03-01', 'tomorrow', /invalid --to 'tomorrow'/],
    ['2026-03-05', '2026-03-05', /--from 2026-03-05 must be before --to 2026-03-05/],
    ['2026-03-06', '2026-03-05', /must be before/],
  ])('rejects bad dates %s..%s naming the value', (from, to, message) => {
    expect(() => planWindows(from, to, 'day')).toThrow(UsageError);
    expect(() => planWindows(from, to, 'day')).toThrow(message);
  });
});

describe('date helpers', () => {
  it('adds days across month ends and leap days', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
  });
  it('takes today in UTC', () => {
    expect(utcToday(Date.parse('2026-11-22T23:59:59Z'))).toBe('2026-11-22');
    expect(utcToday(Date.parse('2026-11-23T00:00:00Z'))).toBe('2026-11-23');
  });
});
