-- Site-wide daily unique visitors and page views, with the AI share of visitors.
-- May: compare days, sum views_total over days. May not: sum visitors_total over days (a
-- visitor who comes on two days counts once in the week): use weekly_site for weeks.
SELECT project_id, day, visitors_total, visitors_ai,
       round(100.0 * ai_share, 1) AS ai_pct, views_total, complete
FROM daily_site
ORDER BY project_id, day;
