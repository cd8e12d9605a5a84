"""Mutable array references (`jax.new_ref`, `jax.ref`), after JAX's `jax._src.state`.

- `types`: the `Ref` value, its type `AbstractRef` (`Ref{f32[3]}`) and `NDIndexer`, the
  static description of how a ref is indexed;
- `primitives`: the ref primitives (`new_ref`, `get`, `swap`, `addupdate`, `freeze`), each
  declared once with all its rules, and the public functions that bind them;
- `discharge`: the state-discharge pass that turns a jaxpr touching refs into a pure one
  (refs become values in, final values out), run before a jitted program is compiled or
  transformed, and the calls that write the final values back into the refs.
"""
