// Moved to src/protocol/problem.ts; re-exported for the engine (src/kernel/,
// src/sync/) until it talks to a Transport instead of the client.
export * from '../protocol/problem.js';
