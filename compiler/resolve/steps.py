"""The steps of an attack as it is worked out: each value found when it is first read."""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

from compiler import ast as A
from compiler.resolve.evaluator import Evaluator


class LazySteps(Mapping[str, Any]):
    """The steps of an attack, each worked out only when it is read (an example that asks for
    ``r.killed`` does not pay for the sum of ``r.hits``).

    A step's thunk is given the steps when it runs, so it need not hold them: no reference
    cycle keeps an answer alive until the garbage collector comes (a sum of 100 attacks is
    tens of kilobytes)."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self._later: dict[str, Callable[[LazySteps], Any]] = {}
        # step → how its sum is made: (evaluator, per-attack counts, the step counting the attacks, span)
        self.sums: dict[str, tuple[Evaluator, Any, str, Any]] = {}
        # removal step → its joint law of (models removed, wounds then on the damaged model), when asked
        self.wound_states: dict[str, Callable[[LazySteps], dict[tuple[int, int], Any]]] = {}

    def later(self, name: str, thunk: Callable[[LazySteps], Any]) -> None:
        self._later[name] = thunk
        self._values.pop(name, None)

    def __setitem__(self, name: str, value: Any) -> None:
        self._values[name] = value
        self._later.pop(name, None)

    def __getitem__(self, name: str) -> Any:
        if name not in self._values:
            if name not in self._later:
                raise KeyError(name)
            self._values[name] = self._later[name](self)  # kept until it succeeds: a failure fails again
            del self._later[name]
        return self._values[name]

    def removal_state(self, name: str) -> dict[tuple[int, int], Any]:
        """The joint law of removal step ``name``: (models removed, wounds on the model left
        damaged) → chance.  A battle goes on from it exactly (wounds that do not kill stay)."""
        if name not in self.wound_states:
            raise KeyError(name)
        return self.wound_states[name](self)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._values) + [k for k in self._later if k not in self._values])

    def __len__(self) -> int:
        return len(set(self._values) | set(self._later))

    def __contains__(self, name: object) -> bool:
        return name in self._values or name in self._later

    def env(self, base: dict[str, Any], expr: A.Expr, ev: Evaluator) -> dict[str, Any]:
        """``base`` plus the steps that ``expr`` names, worked out."""
        out = dict(base)
        for name in ev.names(expr):
            if name in self:
                out[name] = self[name]
        return out
