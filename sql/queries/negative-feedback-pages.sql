-- Pages with the most negative feedback, with their readers, per project: thumbs down summed
-- over the day windows loaded (feedback entries are events, so they add up), beside the page's
-- average daily unique visitors over the same days (uniques are averaged, never summed). The
-- rate per 1,000 visitor-days counts only the days whose visitors are loaded: thumbs down of a
-- day without visitor data would otherwise be divided by the other days' readers. The 25
-- worst pages of each project.
SELECT project_id, path,
       sum(thumbs_down) AS thumbs_down,
       sum(thumbs_up) AS thumbs_up,
       sum(code_issues) AS code_issues,
       count(*) AS days_with_feedback,
       round(avg(visitors), 1) AS avg_daily_visitors,
       round(1000.0 * sum(thumbs_down) FILTER (WHERE visitors IS NOT NULL) / nullif(sum(visitors), 0), 2) AS negative_per_1000_visitor_days
FROM daily_page_feedback
GROUP BY project_id, path
HAVING sum(thumbs_down) > 0
QUALIFY row_number() OVER (PARTITION BY project_id ORDER BY sum(thumbs_down) DESC, negative_per_1000_visitor_days DESC NULLS LAST, path) <= 25
ORDER BY project_id, thumbs_down DESC, negative_per_1000_visitor_days DESC NULLS LAST, path;
