import { setFlagsFromString } from 'node:v8';

/**
 * The daemon holds little (a few hundred KB per device) but allocates steadily (every poll reads a few answers), and
 * V8's default heap sizing then keeps a lot of garbage resident (bench, 1,000 recorders: 468 MB peak). Given when node
 * starts (the Dockerfiles' entries and `npm start` pass them; V8 sizes the young generation only then):
 * - young generation: semi-spaces allowed to grow to 16 MB, held as V8 starts them (1 MB on Node 20 and 22) from this
 *   module's load until `sizeYoungGeneration` lets them grow (from LARGE_SITE_DEVICES on). At 100 recorders that is
 *   what `--max-semi-space-size=4` gave too (113 MB peak, the bare poller's 114), where starting them at 4 MB
 *   (`--min-semi-space-size=4`) raised the peak to 128-130 MB and 16 MB to 147 (bench `floor`). At 1,000 recorders,
 *   checked once a second, a request in flight outlives two scavenges of 4 MB semi-spaces, so nearly all it allocated
 *   is promoted: scavenges took about 15 % of a core and the bridge 60-67 %; with 16 MB about 5 % and 41-43 %, 290
 *   instead of 229-251 MB peak; at 500 recorders 20 % instead of 28 % (211 instead of 166 MB), at 300 15 % instead of
 *   16 % (176 instead of 151 MB) (bench `scale_1000`, one day, side by side);
 * - old generation: grows by 20 % over what survived a full collection (V8's default: up to 4x).
 * With "optimize for size" set at run time (below) the start of 1,000 recorders took 85-90 s instead of 50.
 */
export const LAUNCH_HEAP_FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=20'] as const;

/** From this many recorders on, the young generation grows to 16 MB; below, it stays as V8 starts it. */
export const LARGE_SITE_DEVICES = 500;

/** The flags node was given (its arguments and NODE_OPTIONS). */
const nodeFlags = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
const launchedWithHeapFlags = () => LAUNCH_HEAP_FLAGS.every((f) => nodeFlags().includes(f));
/** V8's own semi-space growth factor. */
const V8_GROWTH_FACTOR = 2;

// On load, which the entry points do before any other of their imports: the young generation stays as V8 starts it,
// so that loading the code does not grow it, until sizeYoungGeneration lets it grow.
if (launchedWithHeapFlags()) setFlagsFromString('--semi-space-growth-factor=1');

/**
 * The heap flags node was started with: the daemon's (LAUNCH_HEAP_FLAGS), the user's own (arguments or NODE_OPTIONS:
 * left as given), or none (then the installed command starts node again with the daemon's, `bin.ts`).
 */
export function heapFlagsGiven(): 'launch' | 'own' | undefined {
  if (launchedWithHeapFlags()) return 'launch';
  const own = /^--(no-)?optimize-for-size$|^--(min|max)-semi-space-size|^--max-old-space-size|^--heap-growing-percent/;
  return nodeFlags().some((f) => own.test(f)) ? 'own' : undefined;
}

/**
 * Started without heap flags (`node cli.js` by hand; the installed command starts node again with them, `bin.ts`), the
 * heap is kept tight at run time by V8's "optimize for size" mode, for more CPU; not when node was started with heap flags.
 */
export function tuneHeapForDaemon(): 'launch' | 'runtime' | false {
  const given = heapFlagsGiven();
  if (given === 'launch') return 'launch';
  if (given === 'own') return false;
  setFlagsFromString('--optimize-for-size');
  return 'runtime';
}

/**
 * Sizes the young generation for `devices` recorders, in a node started with LAUNCH_HEAP_FLAGS: from
 * LARGE_SITE_DEVICES on it may grow to 16 MB again (V8 reads the growth factor whenever it would grow it); below, it
 * stays as V8 started it. Returns whether it may grow; undefined (nothing changed) where node was started otherwise.
 */
export function sizeYoungGeneration(devices: number): boolean | undefined {
  if (!launchedWithHeapFlags()) return undefined;
  if (devices < LARGE_SITE_DEVICES) return false;
  setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
  return true;
}
