import * as v from 'valibot';
import { definePage } from '../page';
import { optBool, optInt, optString } from './common';

/** Storage > Disk (vendor-facts-more j): one entry per disk; sizes in MB, times in seconds. */
export const DiskInfo = v.looseObject({
  id: v.pipe(v.number(), v.integer()),
  display_id: optInt,
  model: optString,
  serial_no: optString,
  firmware: optString,
  device_type: optString, // None, Normal, Esata, Sd (memory card), Usb, Network, Raid, All
  status: optString, // NoHdd, Unformat, Normal, Full, ReadOnly, HddError, ... Broken, Degrade, Rebuilding
  total_size: optInt,
  free_size: optInt,
  total_time: optInt,
  free_time: optInt,
  format_enable: optBool,
  delete_enable: optBool,
  disk_type: optString,
});
export type DiskInfo = v.InferOutput<typeof DiskInfo>;

export const DiskGetResponse = v.looseObject({
  disk_info: v.optional(v.array(DiskInfo)),
  NasMaxCount: optInt,
  over_write: optString, // Off, Auto, 1Day ... 90Days
  hdd_format_type: optString,
  support_format: optBool,
});
export type DiskGetResponse = v.InferOutput<typeof DiskGetResponse>;

export const diskPage = definePage({
  name: 'StorageConfig/Disk',
  title: 'Storage (disks)',
  operations: {
    Range: { description: 'Disks: limits of the disk list and which members are writable.' },
    Get: { response: DiskGetResponse, description: 'Disks: status, size and free space (MB), recording time (s), overwrite mode.' },
    Set: {
      description: 'Disk roles and NAS disks (the Get object sent back; only disk_type, disk_group_id, NasMaxCount, nas_info change).',
    },
  },
  write: 'whole',
});
export const { Range: diskRange, Get: diskGet, Set: diskSet } = diskPage.operations;
