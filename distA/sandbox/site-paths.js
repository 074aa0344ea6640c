/**
 * Realistic documentation paths for a simulated site, most prominent first: a handful of
 * landing pages, then a mix of API reference, guides, SDK pages, integrations and a long
 * tail of tutorials and changelog entries. Pure: the same rng gives the same site.
 */
export const PATH_FAMILIES = [
    'landing',
    'api-reference',
    'guides',
    'sdks',
    'integrations',
    'components',
    'concepts',
    'changelog',
    'tutorials',
];
const LANDING = [
    '/introduction',
    '/quickstart',
    '/installation',
    '/authentication',
    '/api-reference/introduction',
    '/concepts/overview',
    '/guides/getting-started',
    '/changelog',
    '/faq',
    '/sdks/overview',
    '/troubleshooting',
    '/migration-guide',
    '/best-practices',
    '/settings',
    '/support',
];
const RESOURCES = [
    'users', 'projects', 'deployments', 'webhooks', 'api-keys', 'analytics', 'assistants',
    'agents', 'jobs', 'documents', 'pages', 'searches', 'feedback', 'teams', 'members',
    'invitations', 'billing', 'invoices', 'subscriptions', 'domains', 'certificates',
    'environments', 'secrets', 'logs', 'events', 'files', 'uploads', 'exports', 'imports',
    'integrations', 'themes', 'navigation', 'redirects', 'snippets', 'translations',
    'versions', 'comments', 'notifications', 'audit-logs', 'tokens',
];
const ACTIONS = ['list', 'get', 'create', 'update', 'delete', 'search', 'archive', 'restore', 'export', 'bulk-update'];
const VERBS = [
    'setting-up', 'configuring', 'customizing', 'migrating', 'deploying', 'securing', 'testing',
    'monitoring', 'scaling', 'debugging', 'automating', 'localizing', 'versioning', 'embedding',
    'theming',
];
const NOUNS = [
    'navigation', 'search', 'analytics', 'custom-domains', 'sso', 'webhooks', 'ci-cd',
    'openapi-specs', 'components', 'redirects', 'preview-deployments', 'api-playground',
    'ai-assistant', 'feedback', 'seo', 'llms-txt', 'mcp-server', 'github-sync', 'gitlab-sync',
    'code-blocks',
];
const LANGUAGES = ['python', 'typescript', 'go', 'ruby', 'java', 'php', 'csharp', 'rust', 'swift', 'kotlin'];
const SDK_TOPICS = [
    'installation', 'authentication', 'pagination', 'error-handling', 'retries', 'webhooks',
    'configuration', 'logging', 'testing', 'examples', 'streaming', 'file-uploads',
];
const VENDORS = [
    'github', 'gitlab', 'bitbucket', 'vercel', 'netlify', 'cloudflare', 'aws', 'gcp', 'azure',
    'slack', 'discord', 'intercom', 'segment', 'amplitude', 'mixpanel', 'posthog', 'hubspot',
    'salesforce', 'zendesk', 'okta', 'auth0', 'google-analytics', 'plausible', 'fathom',
    'heap', 'hotjar', 'algolia', 'stripe', 'linear', 'jira',
];
const VENDOR_PAGES = ['overview', 'setup', 'configuration', 'troubleshooting'];
const COMPONENTS = [
    'accordions', 'callouts', 'cards', 'code-groups', 'expandables', 'fields', 'frames', 'icons',
    'mermaid', 'steps', 'tabs', 'tooltips', 'update', 'badges', 'banners', 'columns', 'examples',
    'latex', 'panels', 'params', 'responses', 'snippets', 'tiles', 'tree', 'views', 'color',
    'files', 'prompts', 'visibility', 'tables',
];
const CONCEPTS = [
    'architecture', 'projects', 'environments', 'permissions', 'rate-limits', 'pagination',
    'errors', 'idempotency', 'versioning', 'webhooks', 'events', 'data-model', 'billing',
    'security', 'compliance', 'regions', 'quotas', 'caching', 'search-index', 'ai-traffic',
];
function* product(prefix, first, second, join) {
    for (const a of first)
        for (const b of second)
            yield `${prefix}${a}${join}${b}`;
}
function* changelogPaths() {
    // One entry a week, going back from the start of 2026.
    const start = Date.UTC(2026, 0, 5);
    for (let week = 0; week < 1500; week++) {
        yield `/changelog/${new Date(start - week * 7 * 86_400_000).toISOString().slice(0, 10)}`;
    }
}
function* tutorialPaths() {
    for (const vendor of VENDORS)
        for (const verb of VERBS)
            for (const noun of NOUNS) {
                yield `/tutorials/${verb}-${noun}-with-${vendor}`;
            }
}
function shuffled(items, rng) {
    for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        const a = items[i];
        items[i] = items[j];
        items[j] = a;
    }
    return items;
}
/** Prominence of each family after the landing pages: how often it is drawn next. */
const FAMILY_DRAW = [
    ['api-reference', 0.26],
    ['guides', 0.2],
    ['sdks', 0.1],
    ['integrations', 0.08],
    ['components', 0.06],
    ['concepts', 0.06],
    ['changelog', 0.08],
    ['tutorials', 0.16],
];
/** `count` distinct paths, most prominent first. */
export function generateSitePaths(count, rng) {
    const pools = new Map([
        ['api-reference', shuffled([...product('/api-reference/', RESOURCES, ACTIONS, '/')], rng)],
        ['guides', shuffled([...product('/guides/', VERBS, NOUNS, '-')], rng)],
        ['sdks', shuffled([...product('/sdks/', LANGUAGES, SDK_TOPICS, '/')], rng)],
        ['integrations', shuffled([...product('/integrations/', VENDORS, VENDOR_PAGES, '/')], rng)],
        ['components', shuffled(COMPONENTS.map((c) => `/components/${c}`), rng)],
        ['concepts', shuffled(CONCEPTS.map((c) => `/concepts/${c}`), rng)],
        // Changelog entries stay newest first: recent ones are read more.
        ['changelog', [...changelogPaths()]],
        ['tutorials', shuffled([...tutorialPaths()], rng)],
    ]);
    const result = LANDING.slice(0, count).map((path) => ({ path, family: 'landing' }));
    const seen = new Set(result.map((p) => p.path));
    const cursors = new Map();
    let serial = 0;
    while (result.length < count) {
        let family = pickFamily(rng());
        let pool = pools.get(family) ?? [];
        let cursor = cursors.get(family) ?? 0;
        if (cursor >= pool.length) {
            // This family is used up; take the first that is not (tutorials alone hold 9,000).
            const open = FAMILY_DRAW.find(([f]) => (cursors.get(f) ?? 0) < (pools.get(f)?.length ?? 0));
            if (!open) {
                result.push({ path: `/archive/page-${++serial}`, family: 'tutorials' });
                continue;
            }
            family = open[0];
            pool = pools.get(family) ?? [];
            cursor = cursors.get(family) ?? 0;
        }
        cursors.set(family, cursor + 1);
        const path = pool[cursor];
        if (path === undefined || seen.has(path))
            continue;
        seen.add(path);
        result.push({ path, family });
    }
    return result;
}
function pickFamily(u) {
    let acc = 0;
    for (const [family, weight] of FAMILY_DRAW) {
        acc += weight;
        if (u < acc)
            return family;
    }
    return 'tutorials';
}
//# sourceMappingURL=site-paths.js.map