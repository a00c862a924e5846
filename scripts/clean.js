#!/usr/bin/env node
'use strict';
// Removes dist/ before a build, so that a renamed or deleted source leaves no stale output to be packed.
require('node:fs').rmSync(require('node:path').resolve(__dirname, '..', 'dist'), { recursive: true, force: true });
