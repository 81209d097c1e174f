"""A package's names imported when first asked for (PEP 562), for packages whose every name is
public but not every caller needs every module: what a caller does not ask for is never loaded.

`exports` makes the package's module-level `__getattr__`; the package imports the same names
under `TYPE_CHECKING`, so that mypy and readers see each name's type and home.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: each name of `homes` from its module (`homes[name]`,
    relative to the package), imported the first time the name is asked for."""

    def attribute(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{homes[name]}"), name)

    return attribute
