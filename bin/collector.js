#!/usr/bin/env -S MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=65536 node --max-semi-space-size=2
// The shebang's settings are PROCESS_MALLOC_ENV and PROCESS_V8_FLAGS (src/supervision/v8-flags.ts):
// less resident memory for the same CPU. `node bin/collector.js` runs without them.
import '../dist/bundle/main.js';
