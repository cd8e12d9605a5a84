"""The primitives of didax: each declared once (lax._define.def_primitive) with all its
rules. The public module is didax/lax/__init__.py."""
