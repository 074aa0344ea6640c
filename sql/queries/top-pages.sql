-- Top 10 pages by unique visitors of the newest complete multi-day window (week, month or
-- range; a day window when nothing longer is loaded), per project, naming that window. The
-- window is complete: it has ended and was fetched after it ended. Uniques are read from that
-- window itself (never summed from days). For "last week" use
--   SELECT * FROM latest_top_pages WHERE grain = 'week' ORDER BY project_id, rank;
-- May not: sum `visitors` over pages or windows (uniques are not additive).
WITH pick AS (
  SELECT DISTINCT project_id, grain, window_start, window_end
  FROM latest_top_pages
  QUALIFY row_number() OVER (PARTITION BY project_id
                             ORDER BY grain = 'day', window_end DESC, window_end - window_start DESC) = 1
)
SELECT t.project_id, t.grain, t.window_start, t.window_end, t.rank, t.path, t.visitors, t.human, t.ai,
       round(100.0 * t.ai_share, 1) AS ai_pct, t.views
FROM latest_top_pages t
JOIN pick USING (project_id, grain, window_start, window_end)
ORDER BY t.project_id, t.rank;
