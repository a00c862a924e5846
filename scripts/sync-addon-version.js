#!/usr/bin/env node
'use strict';
/**
 * The add-on's version follows the package's: `npm version <new>` runs this (package.json's `version`
 * script) after writing the new version, before its commit and tag. It sets addon/config.yaml's `version`
 * and addon/Dockerfile's NVR2MQTT_VERSION default, and opens a section for the version in
 * addon/CHANGELOG.md when there is none (to be filled in before the tag is pushed: RELEASING.md).
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { version } = require(path.join(root, 'package.json'));
const edit = (file, change) => {
  const p = path.join(root, file);
  const before = fs.readFileSync(p, 'utf8');
  const after = change(before);
  if (after === before) return;
  fs.writeFileSync(p, after);
  console.log(`${file}: ${version}`);
};

edit('addon/config.yaml', (s) => s.replace(/^version: .*$/m, `version: "${version}"`));
edit('addon/Dockerfile', (s) => s.replace(/^ARG NVR2MQTT_VERSION=.*$/m, `ARG NVR2MQTT_VERSION=${version}`));
edit('addon/CHANGELOG.md', (s) => (s.includes(`\n## ${version}\n`) ? s : s.replace(/\n## /, `\n## ${version}\n\n- \n\n## `)));
