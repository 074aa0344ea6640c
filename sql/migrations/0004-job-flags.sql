-- Schema version 4: data-quality flags on agent jobs, like the flags on page rows. A job
-- whose prLink is not a URL keeps pr_link NULL and gets `pr_link_not_url`; the value the
-- API sent is in the run's log. Rows written before have no flags (NULL).
ALTER TABLE agent_jobs ADD COLUMN flags VARCHAR;
