import type { SiteModel } from './site-model.js';
export interface EngagementShape {
    /** Feedback entries a day, on average. */
    feedbackPerDay: number;
    /** Assistant conversations a day, on average. */
    conversationsPerDay: number;
    /** Distinct search terms a day, on average. */
    searchTermsPerDay: number;
    /** Every day has exactly these counts (no weekday rhythm, no noise): for page-boundary tests. */
    exact: boolean;
}
export declare const DEFAULT_ENGAGEMENT: EngagementShape;
export declare const FEEDBACK_SOURCES: readonly ["code_snippet", "contextual", "agent", "thumbs_only"];
export declare const FEEDBACK_STATUSES: readonly ["pending", "in_progress", "resolved", "dismissed"];
export interface FeedbackEvent {
    id: string;
    path: string;
    comment: string | null;
    createdAt: string;
    source: (typeof FEEDBACK_SOURCES)[number];
    status: (typeof FEEDBACK_STATUSES)[number];
    helpful?: boolean;
    contact?: string | null;
    code?: string;
    filename?: string | null;
    lang?: string | null;
    /** ms; not served */
    at: number;
}
export interface Conversation {
    id: string;
    timestamp: string;
    query: string;
    response: string;
    responseType: 'answer' | 'clarifying_question';
    sources: {
        title: string;
        url: string;
    }[];
    resolutionStatus: 'answered' | 'unanswered';
    queryCategory: string | null;
    pageUrl: string | null;
    threadId: string | null;
    /** not served */
    at: number;
    caller: 'web' | 'api' | 'other';
}
export interface SearchTerm {
    searchQuery: string;
    hits: number;
    ctr: number;
    topClickedPage: string | null;
    lastSearchedAt: string;
}
/** A ULID: 26 Crockford base32 characters. */
export declare const ULID: RegExp;
/** The search vocabulary: every topic with each prefix and suffix (300 terms). */
export declare const SEARCH_TERMS: readonly string[];
/** A deterministic ULID for time `ms`, its randomness drawn from `parts`. */
export declare function ulidOf(ms: number, ...parts: number[]): string;
/** The time a ULID encodes, in ms. */
export declare function ulidTime(id: string): number;
export declare class Engagement {
    private readonly model;
    private readonly shape;
    constructor(model: SiteModel, shape: EngagementShape);
    /** Every feedback entry of `day`, whether its time has come or not, oldest first. */
    feedbackOfDay(day: number): FeedbackEvent[];
    /** Every conversation of `day`, oldest first (their ULIDs sort the same way). */
    conversationsOfDay(day: number): Conversation[];
    /** The thread a conversation names, found from the time its ULID encodes; undefined if none has it. */
    thread(threadId: string, nowMs: number): {
        threadId: string;
        createdAt: string;
        messages: unknown[];
    } | undefined;
    /** Hits and clicks of each search term on `day`, as much as has arrived at `nowMs`. */
    private searchesOfDay;
    /** The search terms of [fromDay, toDay) at `nowMs`: most hits first, then by term. */
    searches(fromDay: number, toDay: number, nowMs: number): {
        terms: SearchTerm[];
        totalSearches: number;
    };
    /** Feedback of [fromDay, toDay) visible at `nowMs`, newest first. */
    feedback(fromDay: number, toDay: number, nowMs: number): FeedbackEvent[];
    /** Conversations of [fromDay, toDay) visible at `nowMs`, oldest first (by ULID). */
    conversations(fromDay: number, toDay: number, nowMs: number): Conversation[];
    /** Conversations of the window by caller. */
    callerStats(fromDay: number, toDay: number, nowMs: number): {
        web: number;
        api: number;
        other: number;
        total: number;
    };
}
