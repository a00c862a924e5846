#!/usr/bin/env node
'use strict';
// Removes dist/ and resources/ (the editor scripts) before a build, so that a renamed or deleted source leaves no
// stale output to be packed.
const { rmSync } = require('node:fs');
const { resolve } = require('node:path');
for (const out of ['dist', 'resources']) rmSync(resolve(__dirname, '..', out), { recursive: true, force: true });
