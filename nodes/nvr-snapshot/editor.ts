/* nvr-snapshot's dialog: the channel picked from the device's own list (or left to msg.channel). */
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

  /** The device's configured channels (the channels route), with their names and state; a saved one stays. */
  export function oneditprepare(this: SnapshotNode): void {
    const node = this;
    const $channel = $('#node-input-channel');
    const $note = $('#nvr-snapshot-note');
    const ask = NVR2MQTT.latestAnswer();
    const fromMsg = node._('nvr-snapshot.note.fromMsg');
    const notListed = node._('nvr-snapshot.note.notListed');
    const refresh = () => {
      const current = $channel.val() || node.channel || '';
      const values = NVR2MQTT.deviceValues($('#node-input-device').val());
      NVR2MQTT.fillSelect($channel, [], current, notListed, fromMsg);
      if (!values?.url) return void $note.text(node._('nvr-snapshot.note.chooseDevice'));
      $note.text(node._('nvr-snapshot.note.asking'));
      ask(
        NVR2MQTT.post<{ channels: NVR2MQTT.ChannelEntry[] }>('channels', values),
        (res) => {
          const cameras = res.channels.filter((c) => c.status !== 'NotConfigured');
          const listed = cameras.map((c) => ({ value: c.channel, text: NVR2MQTT.channelText(c.channel, c) }));
          NVR2MQTT.fillSelect($channel, listed, current, notListed, fromMsg);
          $note.text(cameras.length ? '' : node._('nvr-snapshot.note.none'));
        },
        (xhr) => $note.text(node._('nvr-snapshot.note.failed') + ' ' + NVR2MQTT.errorText(xhr)),
      );
    };
    $('#node-input-device').on('change', refresh);
    refresh();
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
        oneditprepare,
      }),
    };
  }
}
