-- Pages with high traffic that vanished from the newest window: per project, pages with at
-- least `min_visitors` in the window before the newest complete one (of `window_days` days,
-- 1 = daily, 7 = an ISO week) that have no visitors in the newest: removed, renamed, or broken.
-- A page the newest window lists with a count the API did not give (NULL, flagged
-- count_missing) is there: it did not vanish.
--
--   docpipe jobs from-query --file sql/prompts/vanished-pages.sql \
--     --template "{path} had {previous_visitors} unique visitors on {previous_window_start} and none on {newest_window_start}. Find out whether it was removed, renamed or broken, and fix the links and redirects that point to it."
WITH settings AS (SELECT 1 AS window_days, 50 AS min_visitors),
windows AS (
  SELECT lw.project_id, lw.window_start, lw.window_end,
         row_number() OVER (PARTITION BY lw.project_id ORDER BY lw.window_start DESC) AS age
  FROM loaded_windows lw, settings s
  WHERE lw.metric = 'visitors' AND lw.window_end - lw.window_start = s.window_days
    AND window_grain(lw.window_start, lw.window_end) <> 'range'
    AND window_complete(lw.window_end, lw.fetched_at)
),
newest AS (SELECT * FROM windows WHERE age = 1),
previous AS (
  SELECT w.* FROM windows w JOIN newest n ON w.project_id = n.project_id AND w.window_end = n.window_start
)
SELECT p.project_id, prev.path, prev.total AS previous_visitors,
       p.window_start AS previous_window_start, n.window_start AS newest_window_start,
       n.window_end AS newest_window_end
FROM previous p
JOIN newest n ON n.project_id = p.project_id
JOIN page_visitors prev
  ON prev.project_id = p.project_id AND prev.window_start = p.window_start AND prev.window_end = p.window_end
LEFT JOIN page_visitors cur
  ON cur.project_id = n.project_id AND cur.window_start = n.window_start AND cur.window_end = n.window_end
 AND cur.path = prev.path
, settings s
WHERE prev.total >= s.min_visitors AND (cur.path IS NULL OR cur.total = 0)
ORDER BY p.project_id, prev.total DESC, prev.path;
