// How a dollar figure and a count are printed, the same in the terminal, the
// Markdown of a pull-request comment and both viewers (whose UI bundle imports
// this file, so it imports nothing).

/** `$0.2463`, `$12.35`; a cost that could not be computed is said to be unknown, never $0. */
export function money(usd: number | null): string {
  if (usd === null) return 'cost unknown';
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** `1,234,567`. */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}
