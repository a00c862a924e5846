/**
 * The node types the package ships: what the runtime registers, the palette shows and the locales describe. One list
 * for the tests of each of those surfaces (a node added is added here once). Not a test file itself.
 */
export const PALETTE_TYPES = [
  'nvr-control',
  'nvr-event',
  'nvr-get',
  'nvr-range',
  'nvr-recordings',
  'nvr-set',
  'nvr-snapshot',
  'nvr-speaker',
  'nvr-upgrade',
] as const;

/** Every type, the config node (nvr-device, not in the palette) included; sorted. */
export const NODE_TYPES = [...PALETTE_TYPES, 'nvr-device'].sort();
