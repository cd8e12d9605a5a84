"""jax.sharding over 8 CPU devices against real JAX: programs of the kind the sharding
tutorials and JAX's spmd example write (meshes, device_put with NamedSharding and
PartitionSpec, .sharding, addressable_shards, jax.typeof with Explicit axes, eager and
jitted computations on sharded arrays and their result layouts, JAX's sharding errors,
with_sharding_constraint, reshard) print the same under both libraries.

Each program runs in a subprocess (the device count is fixed when the XLA client is made),
once with `jax` bound to real JAX and once to didax; their outputs must be equal line by
line.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from contextlib import redirect_stdout

import pytest

PROGRAMS = {
    "explicit": """
        print(jax.device_count())
        mesh = jax.make_mesh((4, 2), ('X', 'Y'))
        jax.set_mesh(mesh)
        print(mesh, mesh.shape, mesh.axis_names, mesh.devices.shape)
        x = jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P('X', 'Y'))
        print(jax.typeof(x), x.sharding, jax.typeof(x).sharding, sep='\\n')
        for s in x.addressable_shards[:3]:
            print(s.device, s.index, s.replica_id, s.data, sep='\\n')
        y = jnp.sin(x).T
        print(jax.typeof(y), y.sharding.spec)
        for spec in [jax.P('Y', 'X'), jax.P('X', None), jax.P(('X', 'Y'))]:
            y = jax.device_put(x, spec)
            print(y.sharding, y.addressable_shards[1].index, y.addressable_shards[1].replica_id)
        print(jax.reshard(x, jax.P('Y', 'X')).sharding)
        a = jax.device_put(np.arange(4).reshape(4, 1), jax.P('X', None))
        b = jax.device_put(np.arange(8).reshape(1, 8), jax.P(None, 'Y'))
        print(jax.typeof(a), jax.typeof(b), jax.typeof(a + b), a + b)
        s = x.sum(0)
        print(jax.typeof(s), s, jax.typeof(x * 2 + 1), jax.typeof(jnp.exp(x).astype(jnp.int32)))
        print(jax.jit(lambda u, v: u + v)(a, b).sharding)
        u = jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P(None, 'X'))
        v = jax.device_put(jnp.arange(4 * 16.).reshape(4, 16), jax.P('X', None))
        for f in [lambda: jnp.dot(u, v), lambda: u.T + v]:
            try:
                f()
            except Exception as e:
                print('ERROR!', e)
        w = jax.device_put(jnp.ones((16, 4)), jax.P('Y', None))
        print(jax.typeof(jnp.dot(u, w.T)), jax.typeof(jnp.dot(w, u.T)))
    """,
    "auto": """
        auto = jax.sharding.AxisType.Auto
        mesh = jax.make_mesh((4, 2), ('X', 'Y'), (auto, auto))
        jax.set_mesh(mesh)
        x = jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.P(None, 'X'))
        y = jax.device_put(jnp.arange(4 * 16.).reshape(4, 16), jax.P('X', None))
        z = jnp.dot(x, y)
        print(z.sharding, jax.typeof(x), z[:2, :3])

        @jax.jit
        def f(x, y):
            return jax.lax.with_sharding_constraint(jnp.dot(x, y), jax.P('X', None))

        z = f(x, y)
        print(z.sharding, z.is_fully_replicated, float(z.sum()))
        m = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))
        s = NamedSharding(m, P('a'))
        print(m, m.size, s, s.shard_shape((8, 8)), s.num_devices, s.is_fully_replicated)
        w = jax.device_put(np.ones((8, 8), np.float32), s)
        print(w.sharding == s, w.is_fully_replicated, len(w.addressable_shards),
              w.addressable_shards[5].index, jnp.tanh(w).sharding)
        print(repr(P('a', None)), P(), P(('a', 'b')), P('a', 'b') == P('a', 'b'))
    """,
    "data_parallel": """
        mesh = jax.make_mesh((jax.device_count(),), ('batch',),
                             axis_types=(jax.sharding.AxisType.Explicit,))
        data = NamedSharding(mesh, P('batch'))
        params = jax.device_put([np.full((3, 2), 0.1, np.float32), np.zeros(2, np.float32)],
                                NamedSharding(mesh, P()))

        @jax.jit(donate_argnums=0)
        def step(params, x, y):
            def loss(p):
                return jnp.mean((jnp.tanh(x @ p[0]) + p[1] - y) ** 2)
            g = jax.grad(loss)(params)
            return [p - 0.5 * d for p, d in zip(params, g)]

        rs = np.random.RandomState(0)
        for _ in range(3):
            x = jax.device_put(rs.randn(16, 3).astype(np.float32), data)
            y = jax.device_put(rs.randn(16, 2).astype(np.float32), data)
            with jax.set_mesh(mesh):
                params = step(params, x, y)
        print(params[0], params[1].sharding, jax.typeof(params[0]))
        print(jax.reshard(np.arange(8.0), data).sharding)
    """,
}


def _run(lib: str, body: str) -> str:
    if lib == "jax":
        import jax  # noqa: PLC0415
    else:
        import didax as jax  # noqa: PLC0415
    jax.config.update("jax_num_cpu_devices", 8)
    import numpy as np  # noqa: PLC0415

    env = {"jax": jax, "jnp": jax.numpy, "np": np, "P": jax.sharding.PartitionSpec,
           "NamedSharding": jax.sharding.NamedSharding, "Mesh": jax.sharding.Mesh}
    out = io.StringIO()
    with redirect_stdout(out):
        exec(textwrap.dedent(body), env)  # noqa: S102
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prints_what_jax_prints(name):
    outs = {}
    for lib in ("jax", "didax"):
        proc = subprocess.run([sys.executable, __file__, lib, name], capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outs[lib] = json.loads(proc.stdout.splitlines()[-1])
    assert outs["didax"].splitlines() == outs["jax"].splitlines()


if __name__ == "__main__":
    print(json.dumps(_run(sys.argv[1], PROGRAMS[sys.argv[2]])))
