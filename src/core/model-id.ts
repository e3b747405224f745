// Agent Trace names models the models.dev way, `provider/model`
// (`anthropic/claude-opus-4-6`), while agents report the bare name
// (`claude-opus-4-6`, `gpt-5.1-codex`, `composer-2`). A name that already has a
// provider, or whose provider the table below does not know, stays as given.
//
// Ledgers are content-addressed, so a prefix once mapped keeps its provider:
// the table may gain families, never change one.

const PROVIDERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^claude-/, 'anthropic'],
  [/^(gpt-|o[1-9](-|$)|codex-|chatgpt-)/, 'openai'],
  [/^gemini-/, 'google'],
  [/^grok-/, 'xai'],
  [/^deepseek-/, 'deepseek'],
  [/^(mistral-|codestral-|devstral-|magistral-)/, 'mistral'],
  [/^kimi-/, 'moonshotai'],
];

export function modelsDevId(model: string): string {
  const name = model.trim();
  if (name.includes('/')) return name;
  const lower = name.toLowerCase();
  for (const [pattern, provider] of PROVIDERS) if (pattern.test(lower)) return `${provider}/${name}`;
  return name;
}
