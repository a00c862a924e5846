/* nvr-recordings' dialog: the action, the channel picked from the device's own list (or left to msg.channel). */
namespace NVR2MQTT.recordings {
  interface RecordingsNode extends EditorNode {
    channel?: string;
    action?: string;
  }

  export const ACTIONS = ['days', 'list', 'pictures', 'tags', 'tag_add', 'tag_remove'];

  export function label(this: RecordingsNode): string {
    return this.name || 'recordings ' + (this.action || 'list') + (this.channel ? ' ' + this.channel : '');
  }

  /** An IANA zone name (the runtime checks that it exists), or empty for the host's. */
  export function validZone(v: string): boolean {
    return !v || /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(v);
  }

  export function oneditprepare(this: RecordingsNode): void {
    const node = this;
    const $channel = $('#node-input-channel');
    const $note = $('#nvr-recordings-note');
    const ask = NVR2MQTT.latestAnswer();
    const fromMsg = node._('nvr-recordings.note.fromMsg');
    const notListed = node._('nvr-recordings.note.notListed');
    const refresh = () => {
      const current = $channel.val() || node.channel || '';
      const values = NVR2MQTT.deviceValues($('#node-input-device').val());
      NVR2MQTT.fillSelect($channel, [], current, notListed, fromMsg);
      if (!values?.url) return void $note.text(node._('nvr-recordings.note.chooseDevice'));
      $note.text(node._('nvr-recordings.note.asking'));
      ask(
        NVR2MQTT.post<{ channels: NVR2MQTT.ChannelEntry[] }>('channels', values),
        (res) => {
          const cameras = res.channels.filter((c) => c.status !== 'NotConfigured');
          const listed = cameras.map((c) => ({ value: c.channel, text: NVR2MQTT.channelText(c.channel, c) }));
          NVR2MQTT.fillSelect($channel, listed, current, notListed, fromMsg);
          $note.text('');
        },
        (xhr) => $note.text(node._('nvr-recordings.note.failed') + ' ' + NVR2MQTT.errorText(xhr)),
      );
    };
    $('#node-input-device').on('change', refresh);
    refresh();
  }

  export function definitions(): Record<string, Definition> {
    return {
      'nvr-recordings': NVR2MQTT.flowNode({
        defaults: {
          action: { value: 'list', validate: (v: string) => ACTIONS.includes(v) },
          channel: { value: '', validate: NVR2MQTT.validChannel },
          types: { value: '' },
          timeZone: { value: '', validate: validZone },
        },
        icon: 'nvr2mqtt-camera.svg',
        paletteLabel: 'nvr recordings',
        label,
        oneditprepare,
      }),
    };
  }
}
