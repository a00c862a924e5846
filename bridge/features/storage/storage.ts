/**
 * The recorder's disks (StorageConfig/Disk, vendor-facts-more j), read on a slow schedule of their own
 * (`storage_interval`, default 10 min; never with every poll) and published with the device's state (device/storage-state.ts):
 *
 * - `<base>/<dev>`: `disk_<id>_status`, `disk_<id>_total`, `disk_<id>_free`, `disk_<id>_used` (MB, as the device
 *   gives them), `disk_<id>_time_left` (seconds of recording left), `disk_<id>_problem` (core's rule: NoHdd,
 *   Unformat, HddError, Broken, or Full while the recorder does not overwrite), `overwrite`.
 * - Home Assistant: per disk a status sensor, sizes in GB (`data_size`, `measurement`), time left in hours
 *   (`duration`), a `problem` binary sensor; the overwrite mode as a diagnostic sensor. A disk that goes away takes
 *   its entities with it (discovery sends the removal of the components it no longer has).
 *
 * A device without the page (R2) publishes none of this; a read that fails is retried at the next slot.
 */
import { readStorage, type Storage } from '../../../core';
import type { Device } from '../../device/device';
import type { Logger } from '../../base/log';
import { PeriodicReader } from '../periodic-reader';
import type { Json } from '../../device/state';
import { onOffTemplate } from '../../homeassistant/templates';

const MB_TO_GB = 1_048_576 / 1e9; // the device's MB are MiB: 476940 MB is a "500 GB" drive

/** Home Assistant components of the disks (keyed like their state keys), for the recorder's device. */
export function storageComponents(s: Storage, stateTopic: string, node: string): Json {
  const cmps: Json = {};
  const sensor = (key: string, name: string, extra: Json) => {
    cmps[key] = {
      p: 'sensor',
      name,
      unique_id: `${node}_${key}`,
      state_topic: stateTopic,
      entity_category: 'diagnostic',
      value_template: `{{ value_json.${key} if value_json.${key} is defined else 'None' }}`,
      ...extra,
    };
  };
  if (s.overwrite !== undefined) sensor('overwrite', 'Disk overwrite', { icon: 'mdi:database-refresh-outline', enabled_by_default: false });
  for (const d of s.disks) {
    const k = `disk_${d.id}`;
    // Named by number ("Disk 1"): the recorder's own disk alarm is the entity "Disk problem" (device/event-sensors.ts).
    const label = `${d.type === 'Sd' ? 'SD card' : 'Disk'} ${d.id}`;
    // The problem sensor is what a camera owner needs to see; the figures are diagnostics, announced disabled (no flood).
    if (d.status !== undefined) sensor(`${k}_status`, `${label} status`, { icon: 'mdi:harddisk', enabled_by_default: false });
    const gb = (key: string) => `{{ ((value_json.${key} | float) * ${MB_TO_GB}) | round(1) if value_json.${key} is defined else 'None' }}`;
    for (const [part, name] of [
      ['total', 'size'],
      ['free', 'free'],
      ['used', 'used'],
    ] as const) {
      const key = `${k}_${part}`;
      if (d[`${part}Mb`] === undefined) continue;
      sensor(key, `${label} ${name}`, {
        device_class: 'data_size',
        state_class: 'measurement',
        unit_of_measurement: 'GB',
        value_template: gb(key),
        enabled_by_default: false,
      });
    }
    if (d.timeLeftS !== undefined)
      sensor(`${k}_time_left`, `${label} recording time left`, {
        device_class: 'duration',
        state_class: 'measurement',
        unit_of_measurement: 'h',
        enabled_by_default: false,
        value_template: `{{ ((value_json.${k}_time_left | float) / 3600) | round(1) if value_json.${k}_time_left is defined else 'None' }}`,
      });
    const problem = `${k}_problem`;
    cmps[problem] = {
      p: 'binary_sensor',
      name: `${label} problem`,
      unique_id: `${node}_${problem}`,
      state_topic: stateTopic,
      entity_category: 'diagnostic',
      device_class: 'problem',
      value_template: onOffTemplate(problem),
    };
  }
  return cmps;
}

export interface StorageReaderOptions {
  intervalMs: number;
  log: Logger;
}

/**
 * Reads one device's disks every `intervalMs` while the device is online: the first read once the device first
 * answered a poll, then on its own timer. A device that has no disk page stops being asked (R2).
 */
export class StorageReader extends PeriodicReader {
  protected readonly absent = 'the device has no disk page (StorageConfig/Disk): no disk entities';
  protected readonly what = 'reading the disks';

  constructor(
    private readonly device: Device,
    opts: StorageReaderOptions,
  ) {
    super(opts);
  }

  protected async readPage(): Promise<void> {
    this.device.applyStorage(await readStorage(this.device.client, { priority: 'poll' }));
  }
}
