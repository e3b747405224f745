// The four hook classes the kernel uses, each from its own file of tapable (it
// has no exports map): its index requires all twelve, which the build would
// compile into every command that boots the kernel (BENCHMARKS.md, "tapable").
declare module 'tapable/lib/AsyncSeriesBailHook.js' {
  const AsyncSeriesBailHook: typeof import('tapable').AsyncSeriesBailHook;
  export default AsyncSeriesBailHook;
}
declare module 'tapable/lib/AsyncSeriesHook.js' {
  const AsyncSeriesHook: typeof import('tapable').AsyncSeriesHook;
  export default AsyncSeriesHook;
}
declare module 'tapable/lib/AsyncSeriesWaterfallHook.js' {
  const AsyncSeriesWaterfallHook: typeof import('tapable').AsyncSeriesWaterfallHook;
  export default AsyncSeriesWaterfallHook;
}
declare module 'tapable/lib/SyncHook.js' {
  const SyncHook: typeof import('tapable').SyncHook;
  export default SyncHook;
}
