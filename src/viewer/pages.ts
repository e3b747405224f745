// The few HTML documents the server writes itself. The shell is the same for
// every deep link: the bundle reads location.pathname and renders the page.
// No inline script or style anywhere (the CSP forbids them), and the only
// dynamic text, in plainPage, is escaped.

// A new launch may serve a new build: the query keeps the browser from reusing an old bundle.
const BUILD = Date.now().toString(36);

/**
 * The team view (tracer serve) mounts the same bundle under `/ui`: the meta
 * tags tell it where it lives and that a project id is `<org>/<project>`; the
 * header names who is signed in and carries the sign-out form (a plain POST, no script).
 */
export interface ShellOptions {
  base: string;
  team: { signedInAs: string } | null;
}

export function shellPage(options: ShellOptions = { base: '', team: null }): string {
  const base = escapeHtml(options.base);
  const meta = options.team ? `\n<meta name="tracer-base" content="${base}">\n<meta name="tracer-mode" content="team">` : '';
  const account = options.team
    ? `<span class="account">signed in as ${escapeHtml(options.team.signedInAs)}</span><form class="sign-out" method="post" action="${base}/sign-out"><button type="submit">Sign out</button></form>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">${meta}
<title>tracer</title>
<link rel="stylesheet" href="${base}/assets/app.css?v=${BUILD}">
<script type="module" src="${base}/assets/app.js?v=${BUILD}"></script>
</head>
<body>
<header class="top"><a class="brand" href="${base}/">tracer</a>${account}</header>
<main id="app" tabindex="-1"><p class="muted">Loading…</p></main>
<noscript><p>The tracer viewer needs JavaScript (its own bundle, served from this machine).</p></noscript>
</body>
</html>
`;
}

export function plainPage(title: string, text: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>${escapeHtml(title)}</title></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>
`;
}

export function notFoundPage(): string {
  return shellPage();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
