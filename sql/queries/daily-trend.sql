-- Site-wide daily unique visitors and page views, with the AI share of visitors.
SELECT project_id, day, visitors_total, visitors_ai,
       round(100.0 * visitors_ai / nullif(visitors_total, 0), 1) AS ai_pct, views_total
FROM daily_site
ORDER BY project_id, day;
