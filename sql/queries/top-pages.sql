-- Top 10 pages by unique visitors of the newest complete multi-day window (week, month or
-- range; a day window when nothing longer is loaded), per project, naming that window. The
-- window is complete: it has ended and was fetched after it ended. Uniques are read from that
-- window itself (never summed from days). For "last week" use
--   SELECT * FROM latest_top_pages WHERE grain = 'week' ORDER BY project_id, rank;
-- May not: sum `visitors` over pages or windows (uniques are not additive).
SELECT project_id, grain, window_start, window_end, rank, path, visitors, human, ai,
       round(100.0 * ai_share, 1) AS ai_pct, views
FROM top_pages_shown(DATE '-infinity', DATE 'infinity')
ORDER BY project_id, rank;
