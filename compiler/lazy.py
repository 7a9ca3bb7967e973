"""Names of a package imported on first use (PEP 562), so that importing the package costs nothing.

>>> import types
>>> demo = types.ModuleType("demo")
>>> demo.__getattr__, demo.__dir__ = lazy_names("demo", {"sqrt": "math"}, vars(demo))
>>> demo.sqrt(9.0), "sqrt" in dir(demo)
(3.0, True)
"""
from __future__ import annotations

from importlib import import_module
from typing import Any, Callable, Mapping, MutableMapping


def lazy_names(package: str, where: Mapping[str, str],
               namespace: MutableMapping[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose public names live in other modules:
    ``where`` maps each name to its module; a name is imported when first read, then kept in the
    package's ``namespace``."""
    def getattr_(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(where))
    return getattr_, dir_
