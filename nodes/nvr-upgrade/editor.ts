/* nvr-upgrade's dialog. */
namespace NVR2MQTT.upgrade {
  interface UpgradeNode extends EditorNode {
    mode?: string;
  }

  export function label(this: UpgradeNode): string {
    return this.name || (this.mode === 'token' ? 'upgrade token' : 'firmware upgrade');
  }
}
