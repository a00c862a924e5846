/**
 * The table of devices that work (the README's "Which devices"), generated from the captures in test/devices/: model, firmware,
 * kind, channels and what works, each feature read from what the capture answered. Every device in it is replayed
 * to the bridge and the client by devices.test.ts; table.test.ts keeps the README's equal to this table.
 *
 *   node dist/test/devices/device-table.js    rewrites the table in README.md (after npm run build)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCapture, type CaptureData } from '../../simulator';

const ROOT = join(__dirname, '..', '..', '..');
export const DEVICES_DIR = join(ROOT, 'test', 'devices');
export const DEVICES_DOC = join(ROOT, 'README.md');
export const TABLE_START = '<!-- devices table: generated from test/devices/ (test/devices/device-table.ts) -->';
export const TABLE_END = '<!-- end of devices table -->';

type Json = Record<string, any>;

/** The answered data of a path (the first successful answer), when the capture has one. */
function answered(capture: CaptureData, path: string): Json | undefined {
  const x = capture.exchanges.find((e) => e.path === `/API/${path}` && e.status === 200);
  const body = x?.body as Json | undefined;
  return body && (body.result === 'success' || body.data) ? ((body.data ?? {}) as Json) : undefined;
}

/** What works, one feature a row: its name and how the capture shows the device has it. */
const FEATURES: ReadonlyArray<readonly [string, (c: CaptureData) => boolean]> = [
  [
    'floodlight',
    (c) =>
      c.exchanges.some(
        (x) => x.status === 200 && x.path.endsWith('Floodlight2AudioAlarm/Get') && 'floodlight_switch' in ((x.body as Json)?.data ?? {}),
      ),
  ],
  [
    'siren',
    (c) =>
      c.exchanges.some(
        (x) => x.status === 200 && x.path.endsWith('Floodlight2AudioAlarm/Get') && 'audioAlarm_switch' in ((x.body as Json)?.data ?? {}),
      ),
  ],
  ['disarming', (c) => !!answered(c, 'AlarmConfig/Disarming/Get') || !!answered(c, 'LinkageConfig/LinkageManage/Get')],
  ['events', (c) => !!answered(c, 'Event/Check')],
  ['snapshots', (c) => !!answered(c, 'Snapshot/Get')],
  ['streams', (c) => !!answered(c, 'Preview/StreamUrl/Get')],
  ['PTZ', (c) => !!answered(c, 'PreviewChannel/PTZ/Get')],
  ['alarm outputs', (c) => !!answered(c, 'PreviewChannel/ManualAlarm/Get')],
  ['storage', (c) => !!answered(c, 'StorageConfig/Disk/Get')],
  ['firmware check', (c) => !!answered(c, 'Maintenance/FtpUpgrade/Check')],
];

export function readCaptures(dir = DEVICES_DIR): Array<{ file: string; capture: CaptureData }> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, capture: parseCapture(readFileSync(join(dir, file), 'utf8')) }));
}

/** The markdown table: one row a capture. */
export function devicesTable(captures = readCaptures()): string {
  const cell = (s: unknown) => String(s ?? '?').replace(/\|/g, '\\|');
  const rows = captures.map(({ file, capture }) => {
    const d = capture.device ?? {};
    const works = FEATURES.filter(([, has]) => has(capture)).map(([name]) => name);
    return `| ${cell(d.model)} | ${cell(d.firmware)} | ${cell(d.kind)} | ${cell(d.channels)} | ${works.join(', ')} | [${file}](test/devices/${file}) |`;
  });
  return ['| Model | Firmware | Kind | Channels | What works | Capture |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The table as the README holds it (between its markers). */
export function tableInDoc(doc = readFileSync(DEVICES_DOC, 'utf8')): string | undefined {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  return start < 0 || end < start ? undefined : doc.slice(start + TABLE_START.length, end).trim();
}

if (require.main === module) {
  const doc = readFileSync(DEVICES_DOC, 'utf8');
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  writeFileSync(DEVICES_DOC, `${doc.slice(0, start + TABLE_START.length)}\n${devicesTable()}\n${doc.slice(end)}`);
  process.stdout.write(`${DEVICES_DOC}: ${readCaptures().length} devices\n`);
}
