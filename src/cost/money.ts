// How a dollar figure and a count are printed, the same in the terminal, the
// Markdown of a pull-request comment and both viewers (whose UI bundle imports
// this file, so it imports nothing).

/** `$0.2463`, `$12.35`; a cost that could not be computed is said to be unknown, never $0. */
export function money(usd: number | null): string {
  if (usd === null) return 'cost unknown';
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** `1,234,567` (toLocaleString is slow, and depends on the ICU data Node was built with). */
export function count(value: number): string {
  const digits = String(Math.abs(Math.round(value)));
  let out = '';
  for (let end = digits.length; end > 0; end -= 3) out = `${digits.slice(Math.max(0, end - 3), end)}${out === '' ? '' : ','}${out}`;
  return value < 0 ? `-${out}` : out;
}

/**
 * "4 usage records refused and not counted (usage_absurd 1, usage_malformed 2,
 * usage_negative 1)"; null when none was. Said wherever a cost is: a refused
 * record's tokens, and so its cost, are unknown.
 */
export function refusedPhrase(refused: Readonly<Record<string, number>> | undefined): string | null {
  const codes = Object.entries(refused ?? {})
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (codes.length === 0) return null;
  const total = codes.reduce((sum, [, n]) => sum + n, 0);
  return `${count(total)} usage record${total === 1 ? '' : 's'} refused and not counted (${codes.map(([code, n]) => `${code} ${n}`).join(', ')})`;
}
