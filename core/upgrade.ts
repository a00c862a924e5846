import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DeviceError } from './errors';
import {
  firmwareNameLength,
  MAX_FIRMWARE_NAME_LENGTH,
  MAX_FIRMWARE_SIZE,
  MAX_FIRMWARE_SIZE_LARGE,
  UPGRADE_HEAD_SIZE,
  type UpgradeTokenRequest,
} from './pages/upgrade-token';

export interface UpgradeInput {
  /** A firmware file path, or its content. */
  file: string | Uint8Array;
  /** Defaults to the file's base name; a buffer without a name sends an empty one (spec: length 0-256). */
  file_name?: string;
}

/** What the file gives; `base_secondary_authentication` comes from the user. */
export type UpgradeRequest = Omit<UpgradeTokenRequest, 'base_secondary_authentication'>;

function refuse(reason: string, cause?: unknown): DeviceError {
  return new DeviceError({
    kind: 'invalid_request',
    error_code: 'invalid_firmware',
    reason,
    page: 'Maintenance/SystemUpgrade',
    operation: 'Token',
    cause,
  });
}

function unreadable(path: string, err: unknown): DeviceError {
  return refuse(`cannot read firmware file ${JSON.stringify(path)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, err);
}

/**
 * Builds the upgrade token request data from a firmware file or buffer, refusing what the device would refuse
 * before anything is sent. From a path only the size (stat) and the first 3072 bytes are read.
 */
export async function prepareUpgrade(input: UpgradeInput, opts?: { largeCapacity?: boolean }): Promise<UpgradeRequest> {
  const { file } = input;
  const file_name = input.file_name ?? (typeof file === 'string' ? basename(file) : '');
  const nameLength = firmwareNameLength(file_name);
  if (nameLength > MAX_FIRMWARE_NAME_LENGTH) {
    throw refuse(`file name is ${nameLength} characters long; the device accepts at most ${MAX_FIRMWARE_NAME_LENGTH}`);
  }
  const max = opts?.largeCapacity ? MAX_FIRMWARE_SIZE_LARGE : MAX_FIRMWARE_SIZE;
  const checkSize = (size: number) => {
    if (size === 0) throw refuse('firmware file is empty');
    // upgrade_head has exactly 3 * 1024 elements (spec 2.1): a shorter file is no firmware image.
    if (size < UPGRADE_HEAD_SIZE) throw refuse(`firmware file is ${size} bytes; a firmware image has at least ${UPGRADE_HEAD_SIZE} bytes`);
    if (size > max) {
      throw refuse(
        `firmware file is ${size} bytes; the device accepts at most ${max} bytes (${max >> 20} MiB` +
          `${opts?.largeCapacity ? ', large-capacity model' : ''})`,
      );
    }
  };

  let head: Uint8Array;
  let file_size: number;
  if (typeof file === 'string') {
    let st;
    try {
      st = await stat(file);
    } catch (err) {
      throw unreadable(file, err);
    }
    if (!st.isFile()) throw refuse(`firmware path ${JSON.stringify(file)} is not a regular file`);
    file_size = st.size;
    checkSize(file_size);
    head = await readHead(file, Math.min(file_size, UPGRADE_HEAD_SIZE));
  } else {
    file_size = file.byteLength;
    checkSize(file_size);
    head = file.subarray(0, UPGRADE_HEAD_SIZE);
  }
  return { file_name, file_size, upgrade_head: Array.from(head) };
}

async function readHead(path: string, length: number): Promise<Uint8Array> {
  const buf = Buffer.alloc(length);
  let fh;
  try {
    fh = await open(path, 'r');
    let got = 0;
    while (got < length) {
      const { bytesRead } = await fh.read(buf, got, length - got, got);
      if (bytesRead === 0) break; // file shrank since stat
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } catch (err) {
    throw unreadable(path, err);
  } finally {
    await fh?.close();
  }
}
