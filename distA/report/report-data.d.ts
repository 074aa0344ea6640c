/**
 * What the report shows, read from the database's views and ready-made queries (sql/), so
 * that the page and an analyst's SQL agree: daily_site, latest_top_pages, weekly_site through
 * sql/queries/week-over-week.sql, and sql/queries/job-success-rate.sql.
 */
import type { Executor } from '../load/database.js';
export interface DailyPoint {
    day: string;
    visitorsHuman: number | null;
    visitorsAi: number | null;
    visitorsTotal: number | null;
    aiShare: number | null;
    viewsTotal: number | null;
    complete: boolean;
}
export interface TopPage {
    rank: number;
    path: string;
    visitors: number;
    human: number;
    ai: number;
    aiShare: number | null;
    views: number | null;
}
export interface TopPages {
    grain: string;
    windowStart: string;
    windowEnd: string;
    pages: TopPage[];
}
export interface WeekPoint {
    weekStart: string;
    weekEnd: string;
    visitorsTotal: number | null;
    visitorsChangePct: number | null;
    aiShare: number | null;
    /** False for a week fetched before it ended (partial counts); null when not loaded. */
    complete: boolean | null;
    note: string | null;
}
export interface JobOutcomes {
    /** Prompts per status, most frequent first. */
    byStatus: {
        status: string;
        jobs: number;
        withPr: number;
    }[];
    successRate: number | null;
    prRate: number | null;
    finished: number;
}
export interface ProjectReport {
    projectId: string;
    daily: DailyPoint[];
    topPages: TopPages | null;
    weeks: WeekPoint[];
    jobs: JobOutcomes;
}
export interface ReportData {
    from: string;
    to: string;
    last?: string;
    generatedAt: string;
    projects: ProjectReport[];
}
export declare const MISSING_WEEK = "no weekly window loaded: export visitors --window week";
/** The ISO weeks that lie wholly inside [from, to). */
export declare function wholeWeeks(from: string, to: string): {
    start: string;
    end: string;
}[];
export declare function readReportData(db: Executor, options: {
    projects: readonly string[];
    from: string;
    to: string;
    last?: string;
    nowMs: number;
}): Promise<ReportData>;
