/* nvr-snapshot's dialog. */
namespace NVR2MQTT.snapshot {
  interface SnapshotNode extends EditorNode {
    channel?: string;
  }

  /** WIDTHxHEIGHT, spaces around the x allowed. */
  export function validResolution(v: string): boolean {
    return !v || /^[0-9]+ ?x ?[0-9]+$/.test(v);
  }
  export function label(this: SnapshotNode): string {
    return this.name || 'snapshot' + (this.channel ? ' ' + this.channel : '');
  }

  /** nvr-snapshot's node type (nvr-snapshot.html registers it). */
  export function definitions(): Record<string, Definition> {
    return {
      'nvr-snapshot': NVR2MQTT.flowNode({
        defaults: {
          channel: { value: '', validate: NVR2MQTT.validChannel },
          resolution: { value: '', validate: validResolution },
        },
        icon: 'nvr2mqtt-snapshot.svg',
        paletteLabel: 'nvr snapshot',
        label,
      }),
    };
  }
}
