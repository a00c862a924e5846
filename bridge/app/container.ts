#!/usr/bin/env node
/**
 * The container image's entry (Dockerfile ENTRYPOINT).
 *   no arguments, /data/options.json present  Home Assistant add-on: options (and HA's MQTT service) -> bridge
 *   no arguments                              the bridge with the config file named by NVR2MQTT_CONFIG
 *   arguments                                 the nvr2mqtt command's own (--check, simulate ..., --help)
 * As PID 1 (a container run without --init) a signal with no handler is ignored: until the bridge (or the
 * simulator) installs its graceful handler, SIGTERM and SIGINT end the process at once, when nothing that
 * needs a clean stop runs yet.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import './tuning'; // first: holds the young generation before the rest of the code is loaded
import { fetchMqttService, settingsFromAddonOptions } from './addon';
import { main } from './cli';

const ADDON_OPTIONS = '/data/options.json';
const ADDON_STATE_FILE = '/data/nvr2mqtt-state.json';

function exitUntilHandled(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return; // the bridge's own handler stops it cleanly
  process.stderr.write(`${signal} while starting: exiting\n`);
  process.exit(128 + constants.signals[signal]);
}

/** Writes the add-on's settings (no passwords: those go to the environment) and returns the file. */
async function addonConfigFile(): Promise<string> {
  const options: unknown = JSON.parse(readFileSync(ADDON_OPTIONS, 'utf8'));
  const { settings, env } = settingsFromAddonOptions(options, await fetchMqttService());
  Object.assign(process.env, env);
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-'));
  const file = join(dir, 'config.json'); // JSON is YAML: the config loader reads it as it is
  // The add-on's persistent folder keeps the state file (the config above lives in a temporary one).
  writeFileSync(file, JSON.stringify({ state_file: ADDON_STATE_FILE, ...settings }, null, 2), { mode: 0o600 });
  return file;
}

async function run(argv: string[]): Promise<number | undefined> {
  if (argv.length === 0 && existsSync(ADDON_OPTIONS)) {
    try {
      argv = ['--config', await addonConfigFile()];
    } catch (err) {
      process.stderr.write(`nvr2mqtt add-on: ${(err as Error).message}\n`);
      return 1;
    }
  }
  return main(argv);
}

if (require.main === module) {
  process.on('SIGTERM', exitUntilHandled);
  process.on('SIGINT', exitUntilHandled);
  run(process.argv.slice(2)).then(
    (code) => {
      process.off('SIGTERM', exitUntilHandled);
      process.off('SIGINT', exitUntilHandled);
      if (code !== undefined) process.exit(code);
    },
    (err: unknown) => {
      process.stderr.write(`nvr2mqtt: ${(err as Error)?.message ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
