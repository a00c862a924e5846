/* nvr-control's dialog: the modes as the runtime lists them, and the channels or outputs that have the mode's hardware. */
namespace NVR2MQTT.control {
  interface ControlNode extends EditorNode {
    mode?: string;
    channel?: string;
    output?: string;
  }
  interface Hardware {
    channels: Array<{ id: string; name?: string; online?: boolean; state?: string }>;
    outputs: string[];
  }

  /** The modes (nodes/shared/control-modes.ts CONTROL_MODES, from core's live controls), null until the rules arrived. */
  function modes(): Record<string, ControlModeRule> | null {
    return NVR2MQTT.loadedRules()?.modes ?? null;
  }
  function modeOf(mode: string | undefined): ControlModeRule {
    return (mode && modes()?.[mode]) || { target: 'channel', settings: [] };
  }

  export function validMode(v: string): boolean {
    const all = modes();
    return !all || Object.prototype.hasOwnProperty.call(all, v);
  }
  export function validWholeOrEmpty(v: unknown): boolean {
    return v === '' || v === undefined || /^\d+$/.test(String(v).trim());
  }
  export function label(this: ControlNode): string {
    if (this.name) return this.name;
    const m = modeOf(this.mode);
    const target = m.target === 'channel' ? this.channel : m.target === 'output' ? this.output : '';
    return (this.mode || 'nvr control') + (target ? ' ' + target : '');
  }

  export function oneditprepare(this: ControlNode): void {
    const node = this;
    const $mode = $('#node-input-mode');
    const ready = NVR2MQTT.loadRules().done(({ modes: list }) => {
      for (const m of Object.keys(list)) {
        // A mode without a translation (a live control new to core's table) shows the table's label.
        $('<option>')
          .val(m)
          .text(NVR2MQTT.translated(node, 'nvr-control.mode.' + m, list[m].label ?? ''))
          .appendTo($mode);
      }
      $mode.val(node.mode || 'floodlight');
    });
    const refresh = hardwareRefresher(node);
    $mode.on('change', refresh);
    $('#node-input-device').on('change', refresh);
    ready.always(refresh);
  }

  /**
   * What refreshes the dialog for the chosen mode: shows its rows, and asks the device (through the admin route)
   * which channels have the mode's hardware, or its outputs. Only the latest question's answer fills the lists
   * (switching modes quickly answers out of order).
   */
  function hardwareRefresher(node: ControlNode): () => void {
    const $mode = $('#node-input-mode');
    const $channel = $('#node-input-channel');
    const $output = $('#node-input-output');
    const $note = $('#nvr-control-note');
    const notListed = () => node._('nvr-control.note.notListed');
    let asked = 0;
    return () => {
      const seq = ++asked;
      const mode = $mode.val();
      const m = modeOf(mode);
      // Restart mode: the recorder, or a camera behind it (channel optional).
      const channelled = m.target === 'channel' || m.channel === 'optional';
      $('.nvr-control-channel').toggle(channelled);
      $('.nvr-control-output').toggle(m.target === 'output');
      for (const s of ['brightness', 'volume', 'duration']) $('.nvr-control-' + s).toggle(m.settings.includes(s));
      const current = channelled ? $channel.val() || node.channel || '' : $output.val() || node.output || '';
      if (!channelled && m.target === 'device') return void $note.text('');
      const values = NVR2MQTT.deviceValues($('#node-input-device').val());
      if (!values?.url) return void $note.text(node._('nvr-control.note.chooseDevice'));
      $note.text(node._('nvr-control.note.asking'));
      NVR2MQTT.post<Hardware>('hardware', { mode, ...values })
        .done((res) => {
          if (seq !== asked) return;
          if (channelled) {
            const listed = res.channels.map((c) => ({ value: c.id, text: NVR2MQTT.channelText(c.id, c) }));
            if (m.channel === 'optional') listed.unshift({ value: '', text: node._('nvr-control.note.recorder') });
            NVR2MQTT.fillSelect($channel, listed, current, notListed());
            $note.text(res.channels.length || m.channel === 'optional' ? '' : node._('nvr-control.note.noHardware'));
          } else {
            NVR2MQTT.fillSelect(
              $output,
              res.outputs.map((o) => ({ value: o, text: o })),
              current,
              notListed(),
            );
            $note.text(res.outputs.length ? '' : node._('nvr-control.note.noOutputs'));
          }
        })
        .fail((xhr) => {
          if (seq !== asked) return;
          NVR2MQTT.fillSelect(channelled ? $channel : $output, [], current, notListed());
          $note.text(node._('nvr-control.note.failed') + ' ' + NVR2MQTT.errorText(xhr));
        });
    };
  }

  /** nvr-control's node type (nvr-control.html registers it). */
  export function definitions(): Record<string, Definition> {
    return {
      'nvr-control': NVR2MQTT.flowNode({
        defaults: {
          mode: { value: 'floodlight', required: true, validate: validMode },
          channel: { value: '', validate: NVR2MQTT.validChannel },
          output: { value: '' },
          brightness: { value: '', validate: validWholeOrEmpty },
          volume: { value: '', validate: validWholeOrEmpty },
          duration: { value: '', validate: validWholeOrEmpty },
        },
        icon: 'nvr2mqtt-camera.svg',
        paletteLabel: 'nvr control',
        label,
        oneditprepare,
      }),
    };
  }
}
