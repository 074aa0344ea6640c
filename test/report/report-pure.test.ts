/** The report's daily series as the charts draw it: the calendar, with the days not loaded as gaps. */
import { describe, expect, it } from 'vitest';
import { visitorsOption } from '../../src/report/charts.js';
import { missingDayRuns, withGaps, type DailyPoint } from '../../src/report/report-data.js';

const loaded = (day: string, total: number): DailyPoint => ({
  day,
  visitorsHuman: total,
  visitorsAi: 0,
  visitorsTotal: total,
  aiShare: 0,
  viewsTotal: total,
  complete: true,
});

describe('the daily series of the report', () => {
  it('puts the days between loaded days in as missing points, named in runs', () => {
    const daily = withGaps([loaded('2026-11-01', 5), loaded('2026-11-02', 6), loaded('2026-11-05', 7), loaded('2026-11-07', 8)]);
    expect(daily.map((d) => [d.day, d.visitorsTotal, d.missing ?? false])).toEqual([
      ['2026-11-01', 5, false],
      ['2026-11-02', 6, false],
      ['2026-11-03', null, true],
      ['2026-11-04', null, true],
      ['2026-11-05', 7, false],
      ['2026-11-06', null, true],
      ['2026-11-07', 8, false],
    ]);
    expect(missingDayRuns(daily)).toEqual(['2026-11-03 .. 2026-11-04', '2026-11-06']);
    expect(missingDayRuns(withGaps([loaded('2026-11-01', 1), loaded('2026-11-02', 1)]))).toEqual([]);
  });

  it('draws a gap on the calendar axis, not a line across it; whole dates when the days span two years', () => {
    const option = visitorsOption(withGaps([loaded('2026-11-03', 5), loaded('2026-11-05', 7)])) as { xAxis: { data: string[] }; series: { data: (number | null)[] }[] };
    expect(option.xAxis.data).toEqual(['11-03', '11-04', '11-05']);
    expect(option.series[2]?.data).toEqual([5, null, 7]);
    const across = visitorsOption([loaded('2025-12-31', 1), loaded('2026-01-01', 2)]) as { xAxis: { data: string[] } };
    expect(across.xAxis.data).toEqual(['2025-12-31', '2026-01-01']);
  });
});
