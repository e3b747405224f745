// The few HTML documents the server writes itself. The shell is the same for
// every deep link: the bundle reads location.pathname and renders the page.
// No inline script or style anywhere (the CSP forbids them), and the only
// dynamic text, in plainPage, is escaped.

// A new launch may serve a new build: the query keeps the browser from reusing an old bundle.
const BUILD = Date.now().toString(36);

export function shellPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>tracer</title>
<link rel="stylesheet" href="/assets/app.css?v=${BUILD}">
<script type="module" src="/assets/app.js?v=${BUILD}"></script>
</head>
<body>
<header class="top"><a class="brand" href="/">tracer</a></header>
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
