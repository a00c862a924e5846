/* nvr-speaker's dialog: the speaker (empty: the recorder's own, or msg.channel) and the language of spoken text. */
namespace NVR2MQTT.speaker {
  interface SpeakerNode extends EditorNode {
    channel?: string;
  }

  /** Empty, `local` or a channel id. */
  export function validSpeaker(v: string): boolean {
    return !v || /^local$/i.test(v) || NVR2MQTT.validChannel(v);
  }
  export function label(this: SpeakerNode): string {
    return this.name || 'speaker' + (this.channel ? ' ' + this.channel : '');
  }

  /** nvr-speaker's node type (nvr-speaker.html registers it). */
  export function definitions(): Record<string, Definition> {
    return {
      'nvr-speaker': NVR2MQTT.flowNode({
        defaults: {
          channel: { value: '', validate: validSpeaker },
          language: { value: '' },
        },
        icon: 'nvr2mqtt-speaker.svg',
        paletteLabel: 'nvr speaker',
        label,
      }),
    };
  }
}
