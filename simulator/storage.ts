/**
 * Storage > Disk (vendor-facts-more j): one hard disk on an NVR, a memory card (`device_type: "Sd"`) on an IPC, sizes
 * in MB and times in seconds as the vendor's table gives them. Writable: the overwrite mode (`over_write`) and, per the
 * Range's note on its disk table, `disk_type`, `disk_group_id`, `NasMaxCount` and `nas_info`; the rest is read-only.
 * A failing disk is a simulator option (`diskStatus`) or a change of `sim.state['StorageConfig/Disk'].disk_info`
 * (disks come and go).
 */
import { arr, bool, int, list, obj, ro, text } from './descriptors';
import type { Obj, SimPage } from './page-def';
import type { Profile } from './profiles';

export const DISK_PAGE = 'StorageConfig/Disk';
const DISK_STATUS = [
  'NoHdd',
  'Unformat',
  'Normal',
  'Full',
  'ReadOnly',
  'HddError',
  'Connecting',
  'Offline',
  'Occupied',
  'Oversized',
  'Broken',
  'Degrade',
  'Rebuilding',
  'Backup',
  'RaidHdd',
];
const INT32_MAX = 2147483647;

const diskRange = obj({
  id: ro(int(1, 21)),
  display_id: ro(int(1, 21)),
  model: ro(text(0, 40)),
  serial_no: ro(text(0, 20)),
  firmware: ro(text(0, 8)),
  device_type: ro(list(['None', 'Normal', 'Esata', 'Sd', 'Usb', 'Network', 'Raid', 'All'])),
  status: ro(list(DISK_STATUS)),
  total_size: ro(int(0, INT32_MAX)),
  free_size: ro(int(0, INT32_MAX)),
  total_time: ro(int(0, INT32_MAX)),
  free_time: ro(int(0, INT32_MAX)),
  format_enable: ro(bool()),
  delete_enable: ro(bool()),
  disk_type: list(['ReadAndWriteDisk', 'RedundantDisk', 'ReadOnlyDisk']),
});

/**
 * The disk a fresh simulator has: on an NVR the vendor sample's 500 GB drive, full and overwriting (the usual state of
 * a recorder that has run a while); on an IPC a 64 GB card with room left.
 */
function initialDisk(p: Profile): Obj {
  return p.name === 'ipc'
    ? {
        id: 1,
        model: 'SD Card',
        serial_no: 'SD Card',
        firmware: '',
        device_type: 'Sd',
        status: 'Normal',
        total_size: 60906,
        free_size: 41210,
        total_time: 1209600,
        free_time: 818000,
        format_enable: true,
        delete_enable: false,
        disk_type: 'ReadAndWriteDisk',
      }
    : {
        id: 1,
        display_id: 1,
        model: 'TOSHIBA MQ01ABD050V',
        serial_no: 'Z68ES299S',
        firmware: 'AX0U1Q',
        device_type: 'Normal',
        status: 'Full',
        total_size: 476940,
        free_size: 0,
        total_time: 724487,
        free_time: 0,
        format_enable: true,
        delete_enable: false,
        disk_type: 'ReadAndWriteDisk',
      };
}

export const DISK_SIM_PAGE: SimPage = {
  page: DISK_PAGE,
  ops: ['Range', 'Get', 'Set'],
  range: {
    top: (p) => ({
      disk_info: arr(diskRange, { min_size: 0, max_size: 18 }),
      NasMaxCount: int(1, 8, { default_value: 1 }),
      // Writable: Table 1 of the vendor's Range (its read-only note is about the disk_info members of Table 2).
      over_write: list(['Off', 'Auto', '1Day', '3Days', '7Days', '14Days', '30Days', '90Days'], { default_value: 'Auto' }),
      hdd_format_type: ro(list(['AllHddData', 'OnlyHddRecord', 'OnlyHddData'])),
      support_format: ro(bool({ default_value: true })),
      default_timeout: p.name === 'ipc' ? 30000 : 60000,
    }),
  },
  get: { top: (p) => ({ disk_info: [initialDisk(p)] }) },
  // The vendor's Set sample is the Get object plus the UI's `diskArr: []`.
  meta: { diskArr: 'any' },
};

/** The `diskStatus` option: the first disk's status, or no disk at all (`none`). */
export function setDiskStatus(state: Record<string, Obj>, status: string): void {
  if (status !== 'none' && !DISK_STATUS.includes(status)) throw new Error(`diskStatus: one of none, ${DISK_STATUS.join(', ')}`);
  const page = state[DISK_PAGE] as { disk_info: Obj[] };
  if (status === 'none') page.disk_info = [];
  else page.disk_info[0].status = status;
}
