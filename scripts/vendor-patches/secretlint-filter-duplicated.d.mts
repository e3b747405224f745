/** The types of secretlint-filter-duplicated.mjs, for its test. */
export function filterDuplicatedMessages<T>(messages?: T[]): T[];
