/**
 * CodeMirror 6 set-up for the Python editor: language, history, keymaps, a theme drawn from the
 * page's CSS variables (so dark/light switch without rebuilding the editor), and three line
 * decorations driven from outside: the error line, the lines linked to the current focus, and
 * a gutter dot on every line that produced equations in the selected card.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { python } from '@codemirror/lang-python';
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from '@codemirror/language';
import {
  Compartment,
  EditorState,
  RangeSetBuilder,
  StateEffect,
  StateField,
} from '@codemirror/state';
import {
  Decoration,
  drawSelection,
  EditorView,
  gutter,
  GutterMarker,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  type DecorationSet,
  type KeyBinding,
} from '@codemirror/view';
import { tags as t } from '@lezer/highlight';

export interface Marks {
  errorLine: number | null;
  linked: number[];
  traced: number[];
}

export const setMarks = StateEffect.define<Marks>();

const EMPTY: Marks = { errorLine: null, linked: [], traced: [] };

const marksField = StateField.define<Marks>({
  create: () => EMPTY,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setMarks)) return e.value;
    // Edits shift lines; stale marks would point at the wrong code, so they are dropped.
    return tr.docChanged ? { ...EMPTY, traced: [] } : value;
  },
});

const errorLine = Decoration.line({
  class: 'cm-error-line',
  attributes: { 'data-error-line': 'true' },
});
const linkedLine = Decoration.line({
  class: 'cm-linked-line',
  attributes: { 'data-linked': 'true' },
});

const lineDecos = EditorView.decorations.compute([marksField], (state): DecorationSet => {
  const m = state.field(marksField);
  const lines = new Map<number, Decoration[]>();
  const add = (n: number | null, d: Decoration) => {
    if (n === null || n < 1 || n > state.doc.lines) return;
    lines.set(n, [...(lines.get(n) ?? []), d]);
  };
  add(m.errorLine, errorLine);
  for (const n of m.linked) add(n, linkedLine);
  const b = new RangeSetBuilder<Decoration>();
  for (const n of [...lines.keys()].sort((a, c) => a - c)) {
    const from = state.doc.line(n).from;
    for (const d of lines.get(n)!) b.add(from, from, d);
  }
  return b.finish();
});

class DotMarker extends GutterMarker {
  constructor(readonly kind: 'traced' | 'error') {
    super();
  }
  eq(other: DotMarker) {
    return other.kind === this.kind;
  }
  toDOM() {
    const el = document.createElement('span');
    el.className = `cm-dot cm-dot-${this.kind}`;
    el.textContent = this.kind === 'error' ? '✖' : '●';
    el.title = this.kind === 'error' ? 'error raised here' : 'this line produced equations';
    return el;
  }
}
const tracedDot = new DotMarker('traced');
const errorDot = new DotMarker('error');

const markGutter = gutter({
  class: 'cm-mark-gutter',
  markers: (view) => {
    const m = view.state.field(marksField);
    const b = new RangeSetBuilder<GutterMarker>();
    const doc = view.state.doc;
    const set = new Set(m.traced);
    for (let n = 1; n <= doc.lines; n++) {
      if (n === m.errorLine) b.add(doc.line(n).from, doc.line(n).from, errorDot);
      else if (set.has(n)) b.add(doc.line(n).from, doc.line(n).from, tracedDot);
    }
    return b.finish();
  },
  lineMarkerChange: (u) => u.transactions.some((tr) => tr.effects.some((e) => e.is(setMarks))),
});

const highlight = HighlightStyle.define([
  {
    tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword],
    color: 'var(--syn-keyword)',
  },
  { tag: [t.string, t.special(t.string)], color: 'var(--syn-string)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--syn-number)' },
  { tag: [t.comment, t.lineComment], color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: 'var(--syn-function)' },
  {
    tag: [t.definition(t.variableName), t.definition(t.function(t.variableName))],
    color: 'var(--syn-def)',
  },
  { tag: [t.operator, t.punctuation], color: 'var(--syn-punct)' },
  { tag: t.className, color: 'var(--syn-type)' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', color: 'var(--fg)', backgroundColor: 'var(--bg-editor)' },
  '.cm-scroller': { fontFamily: 'var(--mono)', fontSize: '13.5px', lineHeight: '1.55' },
  '.cm-content': { caretColor: 'var(--accent)' },
  '.cm-gutters': { backgroundColor: 'var(--bg-editor)', color: 'var(--fg-dim)', border: 'none' },
  '.cm-activeLine': { backgroundColor: 'var(--bg-active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--bg-active-line)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': {
    backgroundColor: 'var(--bg-selection) !important',
  },
  '.cm-error-line': { backgroundColor: 'var(--bg-error-line)' },
  '.cm-linked-line': {
    backgroundColor: 'var(--bg-linked)',
    boxShadow: 'inset 3px 0 var(--accent)',
  },
  '.cm-mark-gutter': { width: '14px' },
  '.cm-dot': { fontSize: '9px', cursor: 'default' },
  '.cm-dot-traced': { color: 'var(--accent)' },
  '.cm-dot-error': { color: 'var(--danger)' },
});

export interface EditorCallbacks {
  onChange: (code: string) => void;
  onHoverLine: (line: number | null) => void;
  onCursorLine: (line: number) => void;
  keys: KeyBinding[];
}

export class PythonEditor {
  readonly view: EditorView;
  #readOnly = new Compartment();

  constructor(parent: HTMLElement, doc: string, cb: EditorCallbacks) {
    const state = EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        markGutter,
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        python(),
        indentUnit.of('    '), // Python's four spaces (Tab and the indent after a colon)
        syntaxHighlighting(highlight),
        theme,
        marksField,
        lineDecos,
        this.#readOnly.of([]),
        keymap.of([...cb.keys, ...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({
          'aria-label': 'Python code',
          'data-testid': 'editor-content',
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) cb.onChange(u.state.doc.toString());
          else if (u.selectionSet && u.view.hasFocus) {
            cb.onCursorLine(u.state.doc.lineAt(u.state.selection.main.head).number);
          }
        }),
        EditorView.domEventHandlers({
          mousemove: (ev, view) => {
            const pos = view.posAtCoords({ x: ev.clientX, y: ev.clientY });
            cb.onHoverLine(pos === null ? null : view.state.doc.lineAt(pos).number);
          },
          mouseleave: () => cb.onHoverLine(null),
        }),
      ],
    });
    this.view = new EditorView({ state, parent });
  }

  get code(): string {
    return this.view.state.doc.toString();
  }

  setCode(code: string) {
    if (code === this.code) return;
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: code } });
  }

  setMarks(m: Marks) {
    this.view.dispatch({ effects: setMarks.of(m) });
  }

  setReadOnly(ro: boolean) {
    this.view.dispatch({
      effects: this.#readOnly.reconfigure(
        ro ? [EditorState.readOnly.of(true), EditorView.editable.of(false)] : [],
      ),
    });
  }

  /** Scroll a line into view (when the focus comes from another pane). */
  reveal(line: number) {
    if (line < 1 || line > this.view.state.doc.lines) return;
    const pos = this.view.state.doc.line(line).from;
    this.view.dispatch({ effects: EditorView.scrollIntoView(pos, { y: 'nearest' }) });
  }

  /** Put the cursor at the start of a line, scroll to it and focus the editor. */
  moveTo(line: number) {
    if (line < 1 || line > this.view.state.doc.lines) return;
    const pos = this.view.state.doc.line(line).from;
    this.view.dispatch({
      selection: { anchor: pos },
      effects: EditorView.scrollIntoView(pos, { y: 'center' }),
    });
    this.view.focus();
  }

  focus() {
    this.view.focus();
  }

  destroy() {
    this.view.destroy();
  }
}
