// The team view's own HTML, written on the server: the sign-in form (one
// field, `token`, posted to the service, never put in a URL) and short
// messages. No script at all; every dynamic string is escaped.
import { escapeHtml } from '../../viewer/pages.js';

export function page(base: string, title: string, body: string): string {
  const root = escapeHtml(base);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)} · tracer</title>
<link rel="stylesheet" href="${root}/assets/app.css">
</head>
<body>
<header class="top"><a class="brand" href="${root}/">tracer</a></header>
<main id="app">
${body}
</main>
</body>
</html>
`;
}

export function signInPage(base: string, problem?: string): string {
  const root = escapeHtml(base);
  const notice = problem ? `<p class="notice error" role="alert">${escapeHtml(problem)}</p>\n` : '';
  return page(
    base,
    'Sign in',
    `<h1>Sign in to the team view</h1>
${notice}<form class="sign-in" method="post" action="${root}/sign-in">
<label><span>Token</span> <input type="password" name="token" autocomplete="off" spellcheck="false" required></label>
<button type="submit">Sign in</button>
</form>
<p class="muted">An org token shows every project of its org; a project token shows its project. The token stays on this service: the browser keeps only a session cookie.</p>`,
  );
}

export function messagePage(base: string, title: string, text: string): string {
  return page(
    base,
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="${escapeHtml(base)}/">All projects</a></p>`,
  );
}
