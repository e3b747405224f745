// Usage records a transcript holds that were refused (usage_malformed,
// usage_negative, usage_absurd: transcript/usage.ts), counted by code. Their
// tokens are never counted, so a cost with any of them is not known whole.

/** How many usage records were refused, whatever their codes. */
export function refusedCount(refused: Readonly<Record<string, number>>): number {
  return Object.values(refused).reduce((sum, count) => sum + count, 0);
}

/** Refusal counts added code by code into `into`. */
export function addRefused(into: Record<string, number>, more: Readonly<Record<string, number>>): void {
  for (const [code, count] of Object.entries(more)) into[code] = (into[code] ?? 0) + count;
}
