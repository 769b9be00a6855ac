#!/bin/sh
':' //; exec env MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=65536 node --max-semi-space-size=2 "$0" "$@"
// Run as a program, /bin/sh reads the line above and replaces itself with node, started with the
// settings of src/supervision/v8-flags.ts (PROCESS_MALLOC_ENV, PROCESS_V8_FLAGS); to node that
// line is a string and a comment. (`#!/usr/bin/env -S …` would do the same where env has -S;
// BusyBox's, on Alpine, has not.) `node bin/collector.js` runs without the settings.
import '../dist/bundle/main.js';
