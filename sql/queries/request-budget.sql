-- Requests made in the last hour per budget scope (the analytics budget is 100 per hour
-- per organization), and when the last one was made (`docpipe status` shows the last run).
SELECT scope, count(*) AS requests_last_hour, max(started_at) AS last_request
FROM request_log
WHERE started_at > now() - INTERVAL 1 HOUR
GROUP BY scope
ORDER BY scope;
