import { type Engagement } from './engagement.js';
import { type SandboxResponse } from './sandbox-response.js';
export declare const ENGAGEMENT_LIMITS: {
    readonly feedback: {
        readonly defaultLimit: 50;
        readonly maxLimit: 100;
    };
    readonly 'feedback/by-page': {
        readonly defaultLimit: 10;
        readonly maxLimit: 100;
    };
    readonly searches: {
        readonly defaultLimit: 50;
        readonly maxLimit: 100;
    };
    readonly assistant: {
        readonly defaultLimit: 100;
        readonly maxLimit: 1000;
    };
    readonly 'assistant/caller-stats': {
        readonly defaultLimit: 1;
        readonly maxLimit: 1;
    };
};
export type EngagementResource = keyof typeof ENGAGEMENT_LIMITS;
export declare function engagementPage(resource: EngagementResource, params: URLSearchParams, data: Engagement, now: number): SandboxResponse;
export declare function threadResponse(threadId: string, data: Engagement, now: number): SandboxResponse;
