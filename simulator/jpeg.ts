/**
 * A small baseline JPEG encoder (ITU T.81): 3 components without subsampling, the standard tables of its Annex K
 * scaled by a quality as libjpeg scales them, and a restart marker every few blocks (`restartBlocks`, a row of blocks
 * cut in equal segments). The restarts make each segment's coded bytes independent of the others (the DC prediction
 * starts again), so a picture that differs from another in a few places (a test pattern with a caption) is coded by
 * coding the segments that differ (`codeSegment`) and assembling the file from segments coded earlier (`file`).
 */

/** Zigzag position -> natural (row-major) index of an 8x8 block. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57,
  50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/** Annex K.1 quantization tables, natural order: luminance, chrominance. */
const LUMA_Q = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22,
  37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_Q = [
  17,
  18,
  24,
  47,
  99,
  99,
  99,
  99,
  18,
  21,
  26,
  66,
  99,
  99,
  99,
  99,
  24,
  26,
  56,
  99,
  99,
  99,
  99,
  99,
  47,
  66,
  99,
  99,
  99,
  99,
  99,
  99,
  ...new Array<number>(32).fill(99),
];

/** Annex K.3 Huffman tables: code counts per length 1-16, then the symbols. */
interface HuffmanSpec {
  counts: number[];
  symbols: number[];
}
const DC_LUMA: HuffmanSpec = { counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] };
const DC_CHROMA: HuffmanSpec = {
  counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
  symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};
const AC_LUMA: HuffmanSpec = {
  counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  symbols: [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91,
    0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a,
    0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53,
    0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79,
    0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
    0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
    0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2,
    0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};
const AC_CHROMA: HuffmanSpec = {
  counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
  symbols: [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14,
    0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17,
    0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a,
    0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78,
    0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
    0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
    0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2,
    0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};

/** Code and length per symbol (Annex C: codes assigned in order of length). */
function huffmanCodes(spec: HuffmanSpec): { code: Uint16Array; size: Uint8Array } {
  const code = new Uint16Array(256);
  const size = new Uint8Array(256);
  let next = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < spec.counts[len - 1]; i++) {
      code[spec.symbols[k]] = next++;
      size[spec.symbols[k++]] = len;
    }
    next <<= 1;
  }
  return { code, size };
}

/** Coefficients of one 8x8 position: a block of each of the 3 components. */
export const BLOCKS = 3 * 64;

/** AAN scale factors of the float DCT (libjpeg's jfdctflt.c). */
const AAN = [1, 1.387039845, 1.306562965, 1.175875602, 1, 0.785694958, 0.5411961, 0.275899379];

/** Bytes with 0xFF stuffed (a coded 0xFF byte is followed by 0x00), written bit by bit. */
class BitWriter {
  private buf = new Uint8Array(4096);
  private len = 0;
  private acc = 0;
  private bits = 0;

  private byte(b: number): void {
    if (this.len + 2 > this.buf.length) {
      const grown = new Uint8Array(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    this.buf[this.len++] = b;
    if (b === 0xff) this.buf[this.len++] = 0;
  }

  write(value: number, size: number): void {
    this.acc = (this.acc << size) | (value & ((1 << size) - 1));
    this.bits += size;
    while (this.bits >= 8) {
      this.bits -= 8;
      this.byte((this.acc >>> this.bits) & 0xff);
    }
    this.acc &= (1 << this.bits) - 1;
  }

  /** Padded to a byte with 1 bits (as a restart interval ends). */
  done(): Uint8Array {
    if (this.bits) this.write(0x7f, 8 - this.bits);
    return this.buf.slice(0, this.len);
  }
}

export class JpegEncoder {
  readonly mcuRows: number;
  readonly mcuCols: number;
  /** Blocks between restart markers: the largest divisor of a row's blocks up to 8. */
  readonly restartBlocks: number;
  readonly segmentsPerRow: number;
  /** Factors per natural index (1 / quantization and the DCT's scaling together), luminance and chrominance. */
  private readonly scales: [Float64Array, Float64Array];
  private readonly tables: readonly [number[], number[]];
  private readonly huffman = [DC_LUMA, AC_LUMA, DC_CHROMA, AC_CHROMA].map(huffmanCodes);
  private headerBytes?: Uint8Array;
  private readonly ycc = [new Float32Array(64), new Float32Array(64), new Float32Array(64)];

  constructor(
    readonly width: number,
    readonly height: number,
    quality = 80,
  ) {
    if (!(width >= 1 && height >= 1 && width <= 65535 && height <= 65535)) throw new Error(`no JPEG of ${width}x${height}`);
    this.mcuCols = Math.ceil(width / 8);
    this.mcuRows = Math.ceil(height / 8);
    let r = Math.min(8, this.mcuCols);
    while (this.mcuCols % r) r--;
    this.restartBlocks = r;
    this.segmentsPerRow = this.mcuCols / r;
    const scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
    const table = (base: number[]) => base.map((q) => Math.min(255, Math.max(1, Math.floor((q * scale + 50) / 100))));
    this.tables = [table(LUMA_Q), table(CHROMA_Q)];
    const scales = (t: number[]) => Float64Array.from(t, (q, i) => 1 / (q * AAN[i >> 3] * AAN[i & 7] * 8));
    this.scales = [scales(this.tables[0]), scales(this.tables[1])];
  }

  /**
   * The quantized coefficients (zigzag order; Y, Cb, Cr of each 8x8 block, BLOCKS per block) of block row `row`,
   * columns `from` to `to` (exclusive), written into `into` (a whole row's) at their places.
   */
  quantize(rgb: Uint8Array, row: number, from: number, to: number, into: Int16Array): Int16Array {
    const [y, cb, cr] = this.ycc;
    const w = this.width;
    const lastX = w - 1;
    const lastY = this.height - 1;
    for (let col = from; col < to; col++) {
      // A block of one colour (most of a test pattern): its DC alone, from one pixel, no transform needed.
      const first = (Math.min(row * 8, lastY) * w + Math.min(col * 8, lastX)) * 3;
      if (this.flat(rgb, row, col, first)) {
        const r = rgb[first];
        const g = rgb[first + 1];
        const b = rgb[first + 2];
        const at = col * BLOCKS;
        into.fill(0, at, at + BLOCKS);
        into[at] = Math.round((0.299 * r + 0.587 * g + 0.114 * b - 128) * 64 * this.scales[0][0]);
        into[at + 64] = Math.round((-0.168736 * r - 0.331264 * g + 0.5 * b) * 64 * this.scales[1][0]);
        into[at + 128] = Math.round((0.5 * r - 0.418688 * g - 0.081312 * b) * 64 * this.scales[1][0]);
        continue;
      }
      for (let i = 0; i < 64; i++) {
        // Edges repeat the last pixel (the picture need not be a multiple of 8).
        const px = col * 8 + (i & 7);
        const py = row * 8 + (i >> 3);
        const p = ((py > lastY ? lastY : py) * w + (px > lastX ? lastX : px)) * 3;
        const r = rgb[p];
        const g = rgb[p + 1];
        const b = rgb[p + 2];
        y[i] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
        cb[i] = -0.168736 * r - 0.331264 * g + 0.5 * b;
        cr[i] = 0.5 * r - 0.418688 * g - 0.081312 * b;
      }
      for (let c = 0; c < 3; c++) {
        const d = this.ycc[c];
        const scale = this.scales[c === 0 ? 0 : 1];
        const at = col * BLOCKS + c * 64;
        fdct(d);
        for (let k = 0; k < 64; k++) into[at + k] = Math.round(d[ZIGZAG[k]] * scale[ZIGZAG[k]]);
      }
    }
    return into;
  }

  /** Whether the 8x8 block at block row `row`, column `col` is of one colour (`first`: its first pixel's offset). */
  private flat(rgb: Uint8Array, row: number, col: number, first: number): boolean {
    const w = this.width;
    const r = rgb[first];
    const g = rgb[first + 1];
    const b = rgb[first + 2];
    for (let y = row * 8; y < Math.min(row * 8 + 8, this.height); y++)
      for (let x = col * 8, p = (y * w + x) * 3; x < Math.min(col * 8 + 8, w); x++, p += 3)
        if (rgb[p] !== r || rgb[p + 1] !== g || rgb[p + 2] !== b) return false;
    return true;
  }

  /**
   * The coded bytes of segment `segment` of a block row (its blocks `segment * restartBlocks` on) from the row's
   * quantized coefficients (`quantize`): a restart interval of its own.
   */
  codeSegment(coefficients: Int16Array, segment: number): Uint8Array {
    const out = new BitWriter();
    const pred = [0, 0, 0];
    const from = segment * this.restartBlocks;
    for (let col = from; col < from + this.restartBlocks; col++) {
      for (let c = 0; c < 3; c++) {
        const at = col * BLOCKS + c * 64;
        const dc = this.huffman[c === 0 ? 0 : 2];
        const ac = this.huffman[c === 0 ? 1 : 3];
        writeValue(out, dc, 0, coefficients[at] - pred[c]);
        pred[c] = coefficients[at];
        let run = 0;
        for (let k = 1; k < 64; k++) {
          const v = coefficients[at + k];
          if (v === 0) {
            run++;
            continue;
          }
          for (; run >= 16; run -= 16) out.write(ac.code[0xf0], ac.size[0xf0]);
          writeValue(out, ac, run, v);
          run = 0;
        }
        if (run) out.write(ac.code[0], ac.size[0]);
      }
    }
    return out.done();
  }

  /** The whole file: headers, then every segment (`codeSegment`), row by row, with a restart marker between them. */
  file(segments: readonly Uint8Array[], comment?: string): Buffer {
    const count = this.mcuRows * this.segmentsPerRow;
    if (segments.length !== count) throw new Error(`${count} segments expected, got ${segments.length}`);
    const note = comment ? segment(0xfe, [...Buffer.from(comment, 'latin1')]) : [];
    let size = 2 + note.length + this.headers.length + 2 * (count - 1) + 2;
    for (const s of segments) size += s.length;
    const out = Buffer.allocUnsafe(size);
    out[0] = 0xff;
    out[1] = 0xd8;
    out.set(note, 2);
    out.set(this.headers, 2 + note.length);
    let at = 2 + note.length + this.headers.length;
    for (let i = 0; i < count; i++) {
      out.set(segments[i], at);
      at += segments[i].length;
      if (i === count - 1) break;
      out[at++] = 0xff;
      out[at++] = 0xd0 + (i & 7);
    }
    out[at++] = 0xff;
    out[at] = 0xd9;
    return out;
  }

  /** Every header after the comment: JFIF, tables, frame, restart interval, scan (the same for every picture). */
  private get headers(): Uint8Array {
    const w = this.width;
    const h = this.height;
    return (this.headerBytes ??= Uint8Array.from([
      ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
      ...segment(0xdb, [0, ...ZIGZAG.map((i) => this.tables[0][i]), 1, ...ZIGZAG.map((i) => this.tables[1][i])]),
      ...segment(0xc0, [8, h >> 8, h & 0xff, w >> 8, w & 0xff, 3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1]),
      ...segment(
        0xc4,
        [DC_LUMA, AC_LUMA, DC_CHROMA, AC_CHROMA].flatMap((t, i) => [((i & 1) << 4) | (i >> 1), ...t.counts, ...t.symbols]),
      ),
      ...segment(0xdd, [this.restartBlocks >> 8, this.restartBlocks & 0xff]),
      ...segment(0xda, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]),
    ]));
  }
}

/** A marker segment: the marker, its length, its bytes. */
function segment(marker: number, body: number[]): number[] {
  return [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];
}

/** A DC difference (`run` 0) or an AC value after `run` zeros: its category's code, then its bits (Annex F.1.2). */
function writeValue(out: BitWriter, t: { code: Uint16Array; size: Uint8Array }, run: number, v: number): void {
  const abs = v < 0 ? -v : v;
  const size = abs ? 32 - Math.clz32(abs) : 0;
  const symbol = (run << 4) | size;
  out.write(t.code[symbol], t.size[symbol]);
  if (size) out.write(v < 0 ? v + (1 << size) - 1 : v, size);
}

/** In-place forward DCT of an 8x8 block, scaled by AAN (libjpeg's jfdctflt.c): rows, then columns. */
function fdct(d: Float32Array): void {
  for (let pass = 0; pass < 2; pass++) {
    const step = pass === 0 ? 1 : 8;
    for (let n = 0; n < 8; n++) {
      const o = pass === 0 ? n * 8 : n;
      const i1 = o + step;
      const i2 = i1 + step;
      const i3 = i2 + step;
      const i4 = i3 + step;
      const i5 = i4 + step;
      const i6 = i5 + step;
      const i7 = i6 + step;
      const t0 = d[o] + d[i7];
      const t7 = d[o] - d[i7];
      const t1 = d[i1] + d[i6];
      const t6 = d[i1] - d[i6];
      const t2 = d[i2] + d[i5];
      const t5 = d[i2] - d[i5];
      const t3 = d[i3] + d[i4];
      const t4 = d[i3] - d[i4];
      const t10 = t0 + t3;
      const t13 = t0 - t3;
      const t11 = t1 + t2;
      const t12 = t1 - t2;
      d[o] = t10 + t11;
      d[i4] = t10 - t11;
      const z1 = (t12 + t13) * 0.707106781;
      d[i2] = t13 + z1;
      d[i6] = t13 - z1;
      const s10 = t4 + t5;
      const s11 = t5 + t6;
      const s12 = t6 + t7;
      const z5 = (s10 - s12) * 0.382683433;
      const z2 = 0.5411961 * s10 + z5;
      const z4 = 1.306562965 * s12 + z5;
      const z3 = s11 * 0.707106781;
      const z11 = t7 + z3;
      const z13 = t7 - z3;
      d[i5] = z13 + z2;
      d[i3] = z13 - z2;
      d[i1] = z11 + z4;
      d[i7] = z11 - z4;
    }
  }
}
