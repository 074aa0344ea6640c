-- The top pages of the newest complete window: per project, the most recent window of
-- `window_days` days (1 = daily, 7 = weekly: an ISO week, not a 7-day range window) that is
-- complete (ended, UTC, and fetched after), by unique visitors.
-- Edit `settings` to change the window size or how many pages.
--
--   docpipe jobs from-query --file sql/prompts/top-pages.sql \
--     --template "{path} had {total} unique visitors on {window_start} (rank {rank}, AI share {ai_share}). Review it for accuracy and clarity, and fix what is out of date."
WITH settings AS (SELECT 1 AS window_days, 10 AS top_n),
newest AS (
  SELECT lw.project_id, max(lw.window_start) AS window_start
  FROM loaded_windows lw, settings s
  WHERE lw.metric = 'visitors' AND lw.window_end - lw.window_start = s.window_days
    AND window_grain(lw.window_start, lw.window_end) <> 'range'
    AND window_complete(lw.window_end, lw.fetched_at)
  GROUP BY lw.project_id
),
ranked AS (
  SELECT pv.project_id, pv.path, pv.window_start, pv.window_end, pv.total, pv.human, pv.ai,
         row_number() OVER (PARTITION BY pv.project_id ORDER BY pv.total DESC, pv.path) AS rank
  FROM page_visitors pv
  JOIN newest n ON pv.project_id = n.project_id AND pv.window_start = n.window_start, settings s
  WHERE pv.window_end - pv.window_start = s.window_days
)
SELECT r.project_id, r.path, r.window_start, r.window_end, r.total, r.human, r.ai,
       round(r.ai / nullif(r.total, 0), 3) AS ai_share, r.rank
FROM ranked r, settings s
WHERE r.rank <= s.top_n
ORDER BY r.project_id, r.rank;
