-- Week over week, site-wide, from weekly windows only (export --window week): unique visitors,
-- AI share and page views of each week against the week before. Every week between the first
-- and the last weekly window loaded is listed; a week with no weekly window says so in `note`
-- and has no figures (they are never made up from days); a week fetched before it ended (the
-- running one) has its partial figures but no change against the week before, and a week whose
-- week before was fetched before it ended has no change figure either.
-- May: compare a week with the week before. May not: sum weekly visitors into a month (use
-- monthly_site).
WITH bounds AS (
  SELECT project_id, min(week_start) AS first_week, max(week_start) AS last_week
  FROM weekly_site GROUP BY project_id
),
calendar AS (
  SELECT b.project_id, CAST(s.week_start AS DATE) AS week_start
  FROM bounds b, LATERAL (SELECT unnest(generate_series(b.first_week, b.last_week, INTERVAL 7 DAY)) AS week_start) s
),
weeks AS (
  -- Loaded: the week's visitors window is (a week with page views only has no uniques).
  SELECT c.project_id, c.week_start, w.visitors_total, w.ai_share, w.views_total, w.complete,
         EXISTS (SELECT 1 FROM loaded_windows lw
                  WHERE lw.metric = 'visitors' AND lw.project_id = c.project_id
                    AND lw.window_start = c.week_start AND lw.window_end = c.week_start + 7) AS loaded
  FROM calendar c
  LEFT JOIN weekly_site w USING (project_id, week_start)
)
SELECT project_id, week_start, CAST(week_start + 7 AS DATE) AS week_end,
       visitors_total,
       lag(visitors_total) OVER w AS previous_visitors,
       CASE WHEN both_complete THEN round(100.0 * (visitors_total - lag(visitors_total) OVER w) / nullif(lag(visitors_total) OVER w, 0), 1) END AS visitors_change_pct,
       ai_share,
       CASE WHEN both_complete THEN round(ai_share - lag(ai_share) OVER w, 4) END AS ai_share_change,
       views_total,
       complete,
       CASE WHEN both_complete THEN round(100.0 * (views_total - lag(views_total) OVER w) / nullif(lag(views_total) OVER w, 0), 1) END AS views_change_pct,
       CASE
         WHEN NOT loaded THEN 'no weekly window loaded: export visitors --window week'
         WHEN NOT complete THEN 'partial: the week was fetched before it ended'
         WHEN lag(loaded) OVER w = false THEN 'no weekly window for the week before'
         WHEN lag(complete) OVER w = false THEN 'the week before was fetched before it ended: refresh it for a change figure'
       END AS note
FROM (SELECT *, complete AND coalesce(lag(complete) OVER (PARTITION BY project_id ORDER BY week_start), false) AS both_complete FROM weeks)
WINDOW w AS (PARTITION BY project_id ORDER BY week_start)
ORDER BY project_id, week_start;
