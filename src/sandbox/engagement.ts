/**
 * What readers did besides visiting, for the sandbox's feedback, searches and assistant
 * endpoints. Everything is generated per (project, UTC day) from hashes, so any day comes out
 * the same in any window: a window's events are the union of its days' events, and its
 * aggregates (searches, feedback by page, caller stats) are sums over its days, which keeps
 * every window size consistent with every other. Events exist once their timestamp has
 * passed; search hits of the last days arrive like page visits do (./data-clock.ts).
 * Pure data: no I/O.
 */
import { arrivedShare, DAY_MS } from './data-clock.js';
import { hashInts, stochasticRound, unit } from './random.js';
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

export const DEFAULT_ENGAGEMENT: EngagementShape = {
  feedbackPerDay: 6,
  conversationsPerDay: 40,
  searchTermsPerDay: 60,
  exact: false,
};

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
const DOCS_ORIGIN = 'https://docs.example.com';

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
  sources: { title: string; url: string }[];
  resolutionStatus: 'answered' | 'unanswered';
  queryCategory: string | null;
  pageUrl: string | null;
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

const TOPICS = [
  'api key', 'authentication', 'webhooks', 'rate limits', 'pagination', 'sdk', 'install', 'deploy',
  'custom domain', 'analytics', 'search', 'navigation', 'openapi', 'components', 'mdx', 'redirects',
  'sso', 'github sync', 'errors', 'versioning',
] as const;
const PREFIXES = ['', 'how to ', 'configure ', 'troubleshoot ', 'what is '] as const;
const SUFFIXES = ['', ' example', ' not working'] as const;
const CATEGORIES = ['getting-started', 'api', 'authentication', 'integrations', 'troubleshooting'] as const;
const COMMENTS = [
  'This example does not work anymore.',
  'Very clear, thanks!',
  'Missing a step about environment variables.',
  'The code sample has a typo.',
  'Could use a diagram.',
  'Outdated screenshot.',
] as const;
const LANGS = ['bash', 'typescript', 'python', 'json'] as const;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A ULID: 26 Crockford base32 characters. */
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const CHANNEL = { feedback: 31, conversations: 32, searches: 33, ulid: 34 } as const;

/** The search vocabulary: every topic with each prefix and suffix (300 terms). */
export const SEARCH_TERMS: readonly string[] = TOPICS.flatMap((t) => PREFIXES.flatMap((p) => SUFFIXES.map((s) => `${p}${t}${s}`)));

function pick<T>(list: readonly T[], u: number): T {
  return list[Math.min(list.length - 1, Math.floor(u * list.length))] as T;
}

const HUMAN_WEEKDAY = [0.5, 1, 1.06, 1.05, 1, 0.88, 0.45] as const;

/** The number of items of a day: the mean, or with weekday rhythm and noise. */
function dayCount(key: number, day: number, mean: number, channel: number, exact: boolean): number {
  if (exact) return Math.max(0, Math.floor(mean));
  const rhythm = HUMAN_WEEKDAY[(((day + 4) % 7) + 7) % 7] ?? 1;
  return stochasticRound(mean * rhythm * (0.6 + 0.8 * unit(key, day, channel, 1)), unit(key, day, channel, 2));
}

/** A deterministic ULID for time `ms`, its randomness drawn from `parts`. */
export function ulidOf(ms: number, ...parts: number[]): string {
  let time = '';
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  let random = '';
  for (let c = 0; random.length < 16; c++) {
    let h = hashInts(...parts, c);
    for (let i = 0; i < 6 && random.length < 16; i++) {
      random += CROCKFORD[h & 31]!;
      h >>>= 5;
    }
  }
  return time + random;
}

/** The time a ULID encodes, in ms. */
export function ulidTime(id: string): number {
  let t = 0;
  for (const ch of id.slice(0, 10)) t = t * 32 + CROCKFORD.indexOf(ch);
  return t;
}

/** A page of the site, the busy ones more often. */
function pagePath(model: SiteModel, u: number): string {
  return model.paths[Math.min(model.paths.length - 1, Math.floor(Math.pow(u, 2.5) * model.paths.length))] ?? '/';
}

const titleOf = (path: string): string => {
  const last = path.split('/').filter(Boolean).at(-1) ?? 'home';
  return last.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
};

export class Engagement {
  constructor(
    private readonly model: SiteModel,
    private readonly shape: EngagementShape,
  ) {}

  /** Every feedback entry of `day`, whether its time has come or not, oldest first. */
  feedbackOfDay(day: number): FeedbackEvent[] {
    const key = this.model.key;
    const n = dayCount(key, day, this.shape.feedbackPerDay, CHANNEL.feedback, this.shape.exact);
    const events: FeedbackEvent[] = [];
    for (let i = 0; i < n; i++) {
      const u = (c: number): number => unit(key, day, i, CHANNEL.feedback, c);
      const at = day * DAY_MS + Math.floor(((i + u(1)) / n) * DAY_MS);
      const r = u(2);
      const source: FeedbackEvent['source'] = r < 0.2 ? 'code_snippet' : r < 0.65 ? 'contextual' : r < 0.7 ? 'agent' : 'thumbs_only';
      const base: FeedbackEvent = {
        id: `fb_${day.toString(36)}_${i.toString(36)}_${(hashInts(key, day, i) >>> 8).toString(36)}`,
        path: pagePath(this.model, u(3)),
        comment: source === 'thumbs_only' ? null : pick(COMMENTS, u(4)),
        createdAt: new Date(at).toISOString(),
        source,
        // Older feedback has had more time to be handled; the status is decided once.
        status: pick(FEEDBACK_STATUSES, u(5)),
        at,
      };
      if (source === 'contextual') {
        events.push({ ...base, helpful: u(6) < 0.55, contact: u(7) < 0.2 ? `reader${i}@example.com` : null });
      } else if (source === 'code_snippet') {
        const lang = pick(LANGS, u(8));
        events.push({ ...base, code: `npx mint dev --port ${3000 + i}`, filename: u(9) < 0.5 ? `example.${lang === 'bash' ? 'sh' : lang}` : null, lang });
      } else {
        events.push(base);
      }
    }
    return events;
  }

  /** Every conversation of `day`, oldest first (their ULIDs sort the same way). */
  conversationsOfDay(day: number): Conversation[] {
    const key = this.model.key;
    const n = dayCount(key, day, this.shape.conversationsPerDay, CHANNEL.conversations, this.shape.exact);
    const list: Conversation[] = [];
    for (let i = 0; i < n; i++) {
      const u = (c: number): number => unit(key, day, i, CHANNEL.conversations, c);
      const at = day * DAY_MS + Math.floor(((i + u(1)) / n) * DAY_MS);
      const topic = pick(TOPICS, Math.pow(u(2), 1.5));
      const path = pagePath(this.model, u(3));
      const unanswered = u(4) < 0.18;
      const clarifying = !unanswered && u(5) < 0.08;
      const sourceCount = unanswered ? 0 : 1 + Math.floor(u(6) * 3);
      const sources = Array.from({ length: sourceCount }, (_, s) => {
        const p = pagePath(this.model, unit(key, day, i, CHANNEL.conversations, 10 + s));
        return { title: titleOf(p), url: `${DOCS_ORIGIN}${p}` };
      });
      list.push({
        id: ulidOf(at, key, day, i, CHANNEL.ulid),
        timestamp: new Date(at).toISOString(),
        query: `${pick(['How do I set up', 'Why does', 'Where can I find', 'Can I use'], u(7))} ${topic}?`,
        response: unanswered
          ? `I could not find anything about ${topic} in the documentation.`
          : clarifying
            ? `Do you mean ${topic} for the API or for the dashboard?`
            : `To work with ${topic}, see ${sources[0]?.title ?? 'the guides'}.`,
        responseType: clarifying ? 'clarifying_question' : 'answer',
        sources,
        resolutionStatus: unanswered ? 'unanswered' : 'answered',
        queryCategory: u(8) < 0.15 ? null : pick(CATEGORIES, u(9)),
        pageUrl: u(11) < 0.2 ? null : `${DOCS_ORIGIN}${path}`,
        at,
        caller: u(13) < 0.7 ? 'web' : u(13) < 0.9 ? 'api' : 'other',
      });
    }
    return list;
  }

  /**
   * The thread of a conversation, named by the conversation's id as the API's docs say ("the
   * `id` field of any row returned by Get assistant conversations"), found from the time its
   * ULID encodes; undefined if no conversation has that id.
   */
  thread(threadId: string, nowMs: number): { threadId: string; createdAt: string; messages: unknown[] } | undefined {
    if (!ULID.test(threadId)) return undefined;
    const at = ulidTime(threadId);
    const turn = this.conversationsOfDay(Math.floor(at / DAY_MS)).find((c) => c.id === threadId);
    if (!turn || turn.at > nowMs) return undefined;
    const later = new Date(turn.at + 4_000).toISOString();
    return {
      threadId,
      createdAt: turn.timestamp,
      messages: [
        { id: `${threadId}-1`, role: 'user', content: turn.query, createdAt: turn.timestamp },
        { id: `${threadId}-2`, role: 'assistant', content: turn.response, createdAt: later },
      ],
    };
  }

  /** Hits and clicks of each search term on `day`, as much as has arrived at `nowMs`. */
  private searchesOfDay(day: number, nowMs: number): Map<number, { hits: number; clicks: number }> {
    const key = this.model.key;
    const share = this.shape.exact ? (day * DAY_MS <= nowMs ? 1 : 0) : arrivedShare(day, nowMs);
    const found = new Map<number, { hits: number; clicks: number }>();
    if (share <= 0) return found;
    const mean = this.shape.searchTermsPerDay;
    for (let i = 0; i < SEARCH_TERMS.length; i++) {
      const u = (c: number): number => unit(key, day, i, CHANNEL.searches, c);
      let hits: number;
      if (this.shape.exact) hits = i < mean ? 1 + (hashInts(key, day, i) % 3) : 0;
      else {
        // A long tail: term i is searched about 2·mean/(i+1)^1.1 times a day, scaled to the mean.
        const expected = (1.6 * mean * Math.pow(i + 1, -1.1) * (0.5 + u(1))) / Math.log(mean + 2);
        hits = stochasticRound(expected * share, u(2));
      }
      if (hits === 0) continue;
      // Some terms never lead anywhere: nothing in the docs answers them.
      const ctr = unit(key, i, CHANNEL.searches, 3) < 0.15 ? 0 : 0.2 + 0.6 * unit(key, i, CHANNEL.searches, 4);
      found.set(i, { hits, clicks: stochasticRound(hits * ctr, u(5)) });
    }
    return found;
  }

  /** The search terms of [fromDay, toDay) at `nowMs`: most hits first, then by term. */
  searches(fromDay: number, toDay: number, nowMs: number): { terms: SearchTerm[]; totalSearches: number } {
    const key = this.model.key;
    const sums = new Map<number, { hits: number; clicks: number; lastDay: number }>();
    let totalSearches = 0;
    for (let day = fromDay; day < toDay; day++) {
      for (const [i, s] of this.searchesOfDay(day, nowMs)) {
        const sum = sums.get(i) ?? { hits: 0, clicks: 0, lastDay: day };
        sum.hits += s.hits;
        sum.clicks += s.clicks;
        sum.lastDay = day;
        sums.set(i, sum);
        totalSearches += s.hits;
      }
    }
    const terms = [...sums].map(([i, s]): SearchTerm => {
      const last = Math.min(nowMs, s.lastDay * DAY_MS + Math.floor(unit(key, s.lastDay, i, CHANNEL.searches, 6) * DAY_MS));
      return {
        searchQuery: SEARCH_TERMS[i] ?? `term ${i}`,
        hits: s.hits,
        ctr: Math.round((s.clicks / s.hits) * 10_000) / 10_000,
        topClickedPage: s.clicks > 0 ? pagePath(this.model, unit(key, i, CHANNEL.searches, 7)) : null,
        lastSearchedAt: new Date(last).toISOString(),
      };
    });
    terms.sort((a, b) => b.hits - a.hits || (a.searchQuery < b.searchQuery ? -1 : 1));
    return { terms, totalSearches };
  }

  /** Feedback of [fromDay, toDay) visible at `nowMs`, newest first. */
  feedback(fromDay: number, toDay: number, nowMs: number): FeedbackEvent[] {
    const all: FeedbackEvent[] = [];
    for (let day = fromDay; day < toDay; day++) all.push(...this.feedbackOfDay(day).filter((f) => f.at <= nowMs));
    return all.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
  }

  /** Conversations of [fromDay, toDay) visible at `nowMs`, oldest first (by ULID). */
  conversations(fromDay: number, toDay: number, nowMs: number): Conversation[] {
    const all: Conversation[] = [];
    for (let day = fromDay; day < toDay; day++) all.push(...this.conversationsOfDay(day).filter((c) => c.at <= nowMs));
    return all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Conversations of the window by caller. */
  callerStats(fromDay: number, toDay: number, nowMs: number): { web: number; api: number; other: number; total: number } {
    const stats = { web: 0, api: 0, other: 0, total: 0 };
    for (const c of this.conversations(fromDay, toDay, nowMs)) {
      stats[c.caller]++;
      stats.total++;
    }
    return stats;
  }
}

