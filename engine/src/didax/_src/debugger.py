"""`jax.debug.breakpoint`: a pdb-like debugger (`jdb`) that stops where the program runs
— eagerly, or inside jit/vmap/grad when the compiled program reaches it — with the user's
frames and the *values* of their traced local variables (which become the operands of a
debug callback, as JAX passes them).

Commands as JAX's CLI debugger: `p`/`pp` expr, any expression, `u(p)`, `d(own)`,
`l(ist)`, `w(here)`/`bt`, `c(ontinue)`, `q(uit)`/`exit`. When standard input is not
interactive (the playground's kernel has none) the debugger reads its end at once and, as
JAX's does, quits the program (`SystemExit(0)`) — saying so on stderr — rather than wait.

May import core, callback, tree_util, source_info.
"""

from __future__ import annotations

import cmd
import inspect
import pprint
import sys
import traceback
from typing import Any

from didax._src import core, source_info
from didax._src.callback import debug_callback
from didax._src.tree_util import tree_flatten, tree_unflatten

NO_INPUT = (
    "jax.debug.breakpoint: no interactive debugger is available here — its input ended "
    "(the playground cannot send input to a running program), so, like JAX's debugger at "
    "the end of its input, it quits the program at this breakpoint. To inspect values, "
    "use jax.debug.print instead.\n")


class DebuggerFrame:
    """One user frame: where it is, its source, and its variables."""

    def __init__(self, filename, locals_, globals_, source, lineno, offset):
        self.filename, self.locals, self.globals = filename, locals_, globals_
        self.source, self.lineno, self.offset = source, lineno, offset

    @classmethod
    def from_frame(cls, frame) -> DebuggerFrame:
        try:
            lines, start = inspect.getsourcelines(frame)
            source = "".join(lines).split("\n")
            offset = frame.f_lineno - max(start, 1)
            offset = offset if 0 <= offset < len(source) else None
        except (OSError, TypeError):
            source, offset = [], None
        return cls(frame.f_code.co_filename, dict(frame.f_locals), dict(frame.f_globals),
                   source, frame.f_lineno, offset)


def _user_frames(num_frames: int | None, filter_frames: bool) -> list[DebuggerFrame]:
    frames = []
    f = sys._getframe(2)
    while f is not None:
        if not filter_frames or not source_info._is_internal(f.f_code.co_filename):
            frames.append(DebuggerFrame.from_frame(f))
        f = f.f_back
    return frames[:num_frames] if num_frames is not None else frames


def _split_traced(frames):
    """(the traced locals, flat; a function rebuilding the frames from their values)."""
    traced, slots = [], []
    for i, fr in enumerate(frames):
        for name, val in fr.locals.items():
            leaves, tree = tree_flatten(val)
            if any(isinstance(x, core.Tracer) for x in leaves):
                slots.append((i, name, tree, len(leaves)))
                traced.extend(leaves)

    def rebuild(values):
        out = [DebuggerFrame(f.filename, dict(f.locals), f.globals, f.source, f.lineno,
                             f.offset) for f in frames]
        it = iter(values)
        for i, name, tree, n in slots:
            out[i].locals[name] = tree_unflatten(tree, [next(it) for _ in range(n)])
        return out
    return traced, rebuild


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token=None, **kwargs):
    """Stops here and opens the debugger on the user's frames."""
    del backend
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frames = _user_frames(num_frames, filter_frames)
    traced, rebuild = _split_traced(frames)

    def callback(*values):
        run_debugger(rebuild(values), **kwargs)

    debug_callback(callback, *traced, ordered=ordered)
    return token


def run_debugger(frames: list[DebuggerFrame], stdin=None, stdout=None) -> None:
    CliDebugger(frames, stdin or sys.stdin, stdout or sys.stdout).run()


class CliDebugger(cmd.Cmd):
    """A text debugger over a list of frames (innermost first)."""

    prompt = "(jdb) "

    def __init__(self, frames, stdin, stdout):
        super().__init__(stdin=stdin, stdout=stdout)
        self.use_rawinput = stdin is sys.stdin and stdout is sys.stdout
        self.frames, self.frame_index = frames, 0
        self.intro = "Entering jdb:"

    def evaluate(self, expr: str) -> Any:
        fr = self.frames[self.frame_index]
        return eval(expr, {}, {**fr.globals, **fr.locals})  # noqa: S307 - the debugger

    def _error(self) -> None:
        msg = traceback.format_exception_only(*sys.exc_info()[:2])[-1].strip()
        print("***", msg, file=self.stdout)

    def default(self, line):
        self.do_p(line)

    def do_p(self, arg):
        """p expression: evaluates and prints the expression's value."""
        try:
            print(repr(self.evaluate(arg)), file=self.stdout)
        except Exception:  # noqa: BLE001 - reported to the user
            self._error()

    def do_pp(self, arg):
        """pp expression: evaluates and pretty-prints the expression's value."""
        try:
            print(pprint.pformat(self.evaluate(arg)), file=self.stdout)
        except Exception:  # noqa: BLE001
            self._error()

    def do_up(self, arg):
        """u(p): moves up a frame."""
        if self.frame_index == len(self.frames) - 1:
            print("At topmost frame.", file=self.stdout)
        else:
            self.frame_index += 1
        self.print_context()

    def do_down(self, arg):
        """d(own): moves down a frame."""
        if self.frame_index == 0:
            print("At bottommost frame.", file=self.stdout)
        else:
            self.frame_index -= 1
        self.print_context()

    def do_list(self, arg):
        """l(ist): lists the source around the current line."""
        self.print_context(num_lines=5)

    def do_continue(self, arg):
        """c(ont(inue)): continues the program."""
        return True

    def do_quit(self, arg):
        """q(uit), exit: quits the program."""
        sys.exit(0)

    def do_where(self, arg):
        """w(here), bt: prints the stack, the innermost frame last."""
        lines = ["Traceback:"]
        for fr in self.frames[::-1]:
            lines.append(f'  File "{fr.filename}", line {fr.lineno}')
            lines.append("    <no source>" if fr.offset is None
                         else f"    {fr.source[fr.offset].strip()}")
        print("\n".join(lines), file=self.stdout)

    do_u, do_d, do_l = do_up, do_down, do_list
    def do_EOF(self, arg):  # noqa: N802 - cmd's name for the end of input
        """The end of input quits, saying why."""
        sys.stderr.write(NO_INPUT)
        sys.exit(0)

    do_c = do_cont = do_continue
    do_q = do_exit = do_quit
    do_w = do_bt = do_where

    def print_context(self, num_lines: int = 2) -> None:
        fr = self.frames[self.frame_index]
        out = [f"> {fr.filename}({fr.lineno})"]
        for i, line in enumerate(fr.source):
            if fr.offset is not None and fr.offset - 1 - num_lines <= i <= \
                    fr.offset + num_lines:
                out.append(f"->  {line}" if i == fr.offset else f"    {line}")
        print("\n".join(out), file=self.stdout)

    def run(self) -> None:
        while True:
            try:
                self.cmdloop()
                return
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=sys.stdout)
