#!/usr/bin/env -S node --max-semi-space-size=2
// The shebang's V8 flags are PROCESS_V8_FLAGS (src/supervision/v8-flags.ts): a smaller young
// generation for the fetch loop. `node bin/collector.js` runs without them.
import '../dist/bundle/main.js';
