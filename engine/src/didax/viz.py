"""`didax.viz`: the playground's recorder — `capture()` turns every top-level
transformation call into a trace card; `show(f, *args)` adds one explicitly."""

from didax._src.viz.capture import capture as capture
from didax._src.viz.capture import show as show

__all__ = ["capture", "show"]
