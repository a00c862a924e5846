/**
 * `linkage_ptz_point_index` (spec 2.3) comes in two forms:
 * - old firmware: an int 0-255;
 * - from 8.2.3: a 64-hex-digit string of 256 bits, little-endian: bit 0 = the "None" option, bits 1-255 = presets
 *   1-255, a set bit means the option exists.
 * Both are normalised to the sorted list of available indices (0 = None).
 */

export const PTZ_HEX_DIGITS = 64;
const PTZ_HEX_RE = /^[0-9a-fA-F]{64}$/;

/** True for a well-formed 256-bit preset set (64 hex digits, either case). */
export function isPtzHex(x: unknown): x is string {
  return typeof x === 'string' && PTZ_HEX_RE.test(x);
}

function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1; // a-f / A-F
}

function checkIndex(i: unknown): asserts i is number {
  if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i > 255) {
    throw new Error(`PTZ preset index must be an integer 0-255, got ${JSON.stringify(i)}`);
  }
}

/**
 * Little-endian reading: byte k is hex digits [2k, 2k+1] (the first two digits are byte 0) and holds indices
 * 8k..8k+7, index 8k being the least significant bit of that byte. So `"0f00...00"` = {0, 1, 2, 3} and
 * `"00...0080"` = {255}. Caller guarantees `hex` is well formed (see {@link isPtzHex}).
 */
export function ptzHexHas(hex: string, index: number): boolean {
  const byte = index >> 3;
  const value = (hexDigit(hex.charCodeAt(2 * byte)) << 4) | hexDigit(hex.charCodeAt(2 * byte + 1));
  return ((value >> (index & 7)) & 1) === 1;
}

/** Available preset indices, sorted. Throws a descriptive Error on a malformed value. */
export function ptzPresetIndices(value: number | string): number[] {
  if (typeof value === 'number') {
    // Old form = the index value itself (one index, 0 meaning None): the int carries no set of presets.
    checkIndex(value);
    return [value];
  }
  if (typeof value !== 'string') {
    throw new Error(`linkage_ptz_point_index must be an int 0-255 or a ${PTZ_HEX_DIGITS}-digit hex string, got ${typeof value}`);
  }
  if (!PTZ_HEX_RE.test(value)) {
    const why = value.length !== PTZ_HEX_DIGITS ? `${value.length} characters` : 'a character that is not a hex digit';
    throw new Error(`linkage_ptz_point_index hex string must be ${PTZ_HEX_DIGITS} hex digits (256 bits), got ${why}`);
  }
  const out: number[] = [];
  for (let i = 0; i < 256; i++) if (ptzHexHas(value, i)) out.push(i);
  return out;
}

/** Inverse of the hex form of {@link ptzPresetIndices}: lower-case, 64 digits. */
export function ptzIndexToHex(indices: Iterable<number>): string {
  const bytes = new Uint8Array(32);
  for (const i of indices) {
    checkIndex(i);
    bytes[i >> 3] |= 1 << (i & 7);
  }
  return Buffer.from(bytes).toString('hex');
}
