/**
 * The command registry (after Excalidraw's actions): every user command is one entry with an
 * id, a label, its key chords and what it does. Toolbar buttons, the global key handler, the
 * editor keymap and the help dialog all read this one list, so a shortcut can never exist in
 * one place and be missing from another.
 */
import { isTextTarget, matchKey, type KeyLike } from './keys';
import { SPEEDS } from './player/player.svelte';
import type { Workspace } from './state/workspace.svelte';

export interface Command {
  id: string;
  label: string;
  group: 'Run' | 'View' | 'Player' | 'Graph' | 'Focus';
  keys: string[];
  /** Chords that also fire while typing in the editor or a field. */
  global?: boolean;
  enabled?: () => boolean;
  run: () => void;
}

function focusPane(testid: string) {
  const el = document.querySelector<HTMLElement>(`[data-focus-target="${testid}"]`);
  el?.focus();
}

export function createCommands(ws: Workspace): Command[] {
  const p = ws.player;
  return [
    {
      id: 'run',
      label: 'Run (during a run: restart it)',
      group: 'Run',
      keys: ['Mod-Enter'],
      global: true,
      enabled: () => ws.conn.state === 'open',
      run: () => ws.run(),
    },
    {
      id: 'cancel',
      label: 'Stop the run',
      group: 'Run',
      keys: ['Mod-Shift-Enter'],
      global: true,
      enabled: () => ws.session.running,
      run: () => ws.session.cancel(),
    },
    {
      id: 'share',
      label: 'Share (copy link)',
      group: 'Run',
      keys: ['Mod-s'],
      global: true,
      run: () => void ws.share(),
    },
    {
      id: 'theme',
      label: 'Toggle dark/light theme',
      group: 'View',
      keys: ['Alt-t'],
      global: true,
      run: () => ws.ui.toggleTheme(),
    },
    {
      id: 'help',
      label: 'Keyboard shortcuts',
      group: 'View',
      keys: ['?'],
      run: () => (ws.ui.helpOpen = !ws.ui.helpOpen),
    },
    {
      id: 'play',
      label: 'Play / pause',
      group: 'Player',
      keys: ['k', 'Alt-p'],
      enabled: () => p.length > 0,
      run: () => p.toggle(),
    },
    {
      id: 'step-forward',
      label: 'Step forward',
      group: 'Player',
      keys: ['.', 'Alt-ArrowRight'],
      enabled: () => p.length > 0,
      run: () => p.stepForward(),
    },
    {
      id: 'step-back',
      label: 'Step back',
      group: 'Player',
      keys: [',', 'Alt-ArrowLeft'],
      enabled: () => p.length > 0,
      run: () => p.stepBack(),
    },
    {
      id: 'faster',
      label: 'Faster',
      group: 'Player',
      keys: ['>'],
      run: () =>
        p.setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(p.speed as never) + 1)]),
    },
    {
      id: 'slower',
      label: 'Slower',
      group: 'Player',
      keys: ['<'],
      run: () => p.setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(p.speed as never) - 1)]),
    },
    {
      id: 'next-card',
      label: 'Next trace card',
      group: 'View',
      keys: [']'],
      run: () => ws.selectCard(ws.selection.cardIndex + 1),
    },
    {
      id: 'prev-card',
      label: 'Previous trace card',
      group: 'View',
      keys: ['['],
      run: () => ws.selectCard(ws.selection.cardIndex - 1),
    },
    {
      id: 'zoom-in',
      label: 'Zoom in',
      group: 'Graph',
      keys: ['+', '='],
      run: () => ws.graph.viewport.zoomBy(1.25),
    },
    {
      id: 'zoom-out',
      label: 'Zoom out',
      group: 'Graph',
      keys: ['-'],
      run: () => ws.graph.viewport.zoomBy(0.8),
    },
    {
      id: 'zoom-fit',
      label: 'Fit graph',
      group: 'Graph',
      keys: ['0'],
      run: () => document.dispatchEvent(new CustomEvent('didax:fit')),
    },
    ...(
      [
        ['editor', 'Focus editor', 'Alt-1'],
        ['graph', 'Focus graph', 'Alt-2'],
        ['jaxpr', 'Focus jaxpr listing', 'Alt-3'],
        ['stages', 'Focus stages', 'Alt-4'],
        ['output', 'Focus output', 'Alt-5'],
      ] as const
    ).map(([target, label, key]): Command => ({
      id: `focus-${target}`,
      label,
      group: 'Focus',
      keys: [key],
      global: true,
      run: () => {
        if (target === 'jaxpr' || target === 'stages') ws.ui.bottomTab = target;
        if (ws.ui.narrow) ws.ui.narrowTab = target === 'editor' ? 'code' : target;
        queueMicrotask(() => focusPane(target));
      },
    })),
  ];
}

/** Find the command a key event triggers, honouring text-entry targets. */
export function commandForKey(
  commands: Command[],
  ev: KeyLike & { target: EventTarget | null },
  mac: boolean,
): Command | null {
  const typing = isTextTarget(ev.target);
  for (const c of commands) {
    if (typing && !c.global) continue;
    if (c.keys.some((k) => matchKey(ev, k, mac))) return c;
  }
  return null;
}

export function isMac(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
}
