/**
 * The simulator's pictures: a test pattern (colour bars over a grey ramp) of the size asked for, captioned with what
 * a camera would stamp on it (the channel's name, the time, an alarm's type), as a JPEG (`jpeg.ts`). The pattern of
 * each size is coded once; a picture codes only the blocks its caption covers, so a 1280x720 picture costs about what a
 * small one does.
 */
import { BLOCKS, JpegEncoder } from './jpeg';

/** A 5x7 font, capitals, digits and the punctuation a caption needs: 7 rows of 5 bits, 2 hex digits a row. */
const FONT: Readonly<Record<string, string>> = {
  ' ': '00000000000000',
  '0': '0e11131519110e',
  '1': '040c040404040e',
  '2': '0e11010204081f',
  '3': '1f02040201110e',
  '4': '02060a121f0202',
  '5': '1f101e0101110e',
  '6': '0608101e11110e',
  '7': '1f010204080808',
  '8': '0e11110e11110e',
  '9': '0e11110f01020c',
  A: '0e11111f111111',
  B: '1e11111e11111e',
  C: '0e11101010110e',
  D: '1c12111111121c',
  E: '1f10101e10101f',
  F: '1f10101e101010',
  G: '0e11101711110f',
  H: '1111111f111111',
  I: '0e04040404040e',
  J: '0702020202120c',
  K: '11121418141211',
  L: '1010101010101f',
  M: '111b1515111111',
  N: '11111915131111',
  O: '0e11111111110e',
  P: '1e11111e101010',
  Q: '0e11111115120d',
  R: '1e11111e141211',
  S: '0f10100e01011e',
  T: '1f040404040404',
  U: '1111111111110e',
  V: '11111111110a04',
  W: '1111111515150a',
  X: '11110a040a1111',
  Y: '1111110a040404',
  Z: '1f01020408101f',
  ':': '000c0c000c0c00',
  '-': '0000001f000000',
  '/': '00010204081000',
  '.': '00000000000c0c',
  _: '0000000000001f',
  '(': '02040808080402',
  ')': '08040202020408',
  '>': '08040201020408',
  '+': '0004041f040400',
  '?': '0e110102040004',
};

/** A glyph's 7 rows (5 bits each, the leftmost pixel the highest bit); an unknown character is drawn as `?`. */
function glyph(ch: string): number[] {
  const hex = FONT[ch.toUpperCase()] ?? FONT['?'];
  return Array.from({ length: 7 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

/** SMPTE-like bars at 75 %: white, yellow, cyan, green, magenta, red, blue. */
const BARS: ReadonlyArray<readonly [number, number, number]> = [
  [191, 191, 191],
  [191, 191, 0],
  [0, 191, 191],
  [0, 191, 0],
  [191, 0, 191],
  [191, 0, 0],
  [0, 0, 191],
];

function renderPattern(width: number, height: number): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  // Bars and ramp steps change on block edges only: every block of the pattern is of one colour, quick to code.
  const blocks = Math.ceil(width / 8);
  const barsEnd = Math.min(height, Math.round((height * 2) / 3 / 8) * 8);
  const line = width * 3;
  for (let x = 0; x < width; x++) {
    const block = Math.floor(x / 8);
    rgb.set(BARS[Math.floor((block * BARS.length) / blocks)], x * 3);
    if (barsEnd < height) rgb.fill(Math.round((block * 255) / Math.max(1, blocks - 1)), barsEnd * line + x * 3, barsEnd * line + x * 3 + 3);
  }
  for (let y = 1; y < height; y++)
    if (y !== barsEnd) rgb.copyWithin(y * line, (y < barsEnd ? 0 : barsEnd) * line, (y < barsEnd ? 1 : barsEnd + 1) * line);
  return rgb;
}

/** One size: its encoder, its pattern, and (made when first needed) the pattern's coded rows and coefficients. */
class PatternOfSize {
  readonly encoder: JpegEncoder;
  readonly rgb: Uint8Array;
  private readonly segments: Array<Uint8Array | undefined>;
  private readonly coefficients: Array<Int16Array | undefined>;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.encoder = new JpegEncoder(width, height);
    this.rgb = renderPattern(width, height);
    this.segments = new Array<Uint8Array | undefined>(this.encoder.mcuRows * this.encoder.segmentsPerRow);
    this.coefficients = new Array<Int16Array | undefined>(this.encoder.mcuRows);
  }

  /** Segment `s` of block row `i` of the pattern, coded (a row's at once: its coefficients are kept only where captions need them). */
  segment(i: number, s: number): Uint8Array {
    const e = this.encoder;
    if (!this.segments[i * e.segmentsPerRow]) {
      const row = this.coefficients[i] ?? e.quantize(this.rgb, i, 0, e.mcuCols, new Int16Array(e.mcuCols * BLOCKS));
      for (let n = 0; n < e.segmentsPerRow; n++) this.segments[i * e.segmentsPerRow + n] = e.codeSegment(row, n);
    }
    return this.segments[i * e.segmentsPerRow + s]!;
  }

  /** Block row `i` of the pattern, quantized (kept: captions are coded from them). */
  rowCoefficients(i: number): Int16Array {
    const e = this.encoder;
    return (this.coefficients[i] ??= e.quantize(this.rgb, i, 0, e.mcuCols, new Int16Array(e.mcuCols * BLOCKS)));
  }
}

const patterns = new Map<string, PatternOfSize>();

/**
 * A `width`x`height` JPEG of the test pattern with `lines` written on it, top left, white on black (in capitals);
 * `comment` (a COM segment) names the picture for whoever reads its bytes.
 */
export function testPicture(width: number, height: number, lines: readonly string[], comment?: string): Buffer {
  const key = `${width}x${height}`;
  let pattern = patterns.get(key);
  if (!pattern) patterns.set(key, (pattern = new PatternOfSize(width, height)));
  const e = pattern.encoder;
  const scale = Math.max(1, Math.floor(Math.min(width, (height * 4) / 3) / 320));
  const cell = 6 * scale;
  const lineHeight = 10 * scale;
  const margin = 4 * scale;
  const fit = Math.max(0, Math.floor((width - 2 * margin - 3 * scale) / cell));
  const text = lines.map((l) => l.slice(0, fit));
  const boxW = Math.min(width - margin, 2 * scale + Math.max(0, ...text.map((l) => l.length)) * cell + scale);
  const boxH = Math.min(height - margin, text.length * lineHeight + scale);
  // The blocks the caption covers are drawn on a copy of the pattern's pixels and transformed again; their rows are
  // coded again from the pattern's coefficients with those blocks replaced.
  const blockRows = Math.min(e.mcuRows, Math.ceil((margin + boxH) / 8));
  const blockCols = Math.min(e.mcuCols, Math.ceil((margin + boxW) / 8));
  const covered = Math.min(height, blockRows * 8);
  const rgb = pattern.rgb.slice(0, covered * width * 3);
  const paint = (x: number, y: number, v: number) => {
    if (x < width && y < covered) rgb.fill(v, (y * width + x) * 3, (y * width + x) * 3 + 3);
  };
  for (let y = margin; y < Math.min(margin + boxH, covered); y++) rgb.fill(0, (y * width + margin) * 3, (y * width + margin + boxW) * 3);
  text.forEach((line, n) => {
    [...line].forEach((ch, i) => {
      glyph(ch).forEach((bits, gy) => {
        for (let gx = 0; gx < 5; gx++) {
          if (!(bits & (0x10 >> gx))) continue;
          const x0 = margin + 2 * scale + i * cell + gx * scale;
          const y0 = margin + 2 * scale + n * lineHeight + gy * scale;
          for (let dy = 0; dy < scale; dy++) for (let dx = 0; dx < scale; dx++) paint(x0 + dx, y0 + dy, 255);
        }
      });
    });
  });
  const coded: Uint8Array[] = [];
  const captionSegments = Math.ceil(blockCols / e.restartBlocks);
  for (let i = 0; i < e.mcuRows; i++) {
    const row = i < blockRows ? e.quantize(rgb, i, 0, blockCols, pattern.rowCoefficients(i).slice()) : undefined;
    for (let s = 0; s < e.segmentsPerRow; s++) coded.push(row && s < captionSegments ? e.codeSegment(row, s) : pattern.segment(i, s));
  }
  return e.file(coded, comment);
}

/** `2026-11-29 07:30:15`: the time a camera stamps on its picture (the simulator's clock is UTC, as its events). */
export function stampTime(d: Date): string {
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)}`;
}
