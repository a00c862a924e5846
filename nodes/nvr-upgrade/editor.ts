/* nvr-upgrade's dialog. */
namespace NVR2MQTT.upgrade {
  interface UpgradeNode extends EditorNode {
    mode?: string;
  }

  export function label(this: UpgradeNode): string {
    return this.name || (this.mode === 'token' ? 'upgrade token' : 'firmware upgrade');
  }

  /** nvr-upgrade's node type (nvr-upgrade.html registers it). */
  export function definitions(): Record<string, Definition> {
    return {
      'nvr-upgrade': NVR2MQTT.flowNode({
        color: '#C9B6E4',
        defaults: {
          file: { value: '' },
          large_capacity: { value: false },
          mode: { value: 'upgrade' },
        },
        icon: 'nvr2mqtt-upgrade.svg',
        paletteLabel: 'nvr upgrade',
        label,
      }),
    };
  }
}
