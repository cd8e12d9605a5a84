"""didax.numpy's implementation modules (the public module is didax/numpy/__init__.py)."""
