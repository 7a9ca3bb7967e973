"""``warscribe simulate --exact``: the exact law of a battle's outcome, printed or as JSON."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Sequence

from compiler.cli.common import Exit, report_resolve_error, say, usage_error

if TYPE_CHECKING:
    from compiler import ast as A
    from compiler.driver import Compilation
    from compiler.model.ruleset import Ruleset


def exact_answer(compiled: Compilation, model: Ruleset, sc: A.Scenario, policies: Sequence[str],
                 as_json: bool) -> None:
    """Work out the exact law of ``sc`` under ``policies`` and print it (a usage error, exit 2, for a
    policy that is not deterministic or a battle past the limit of positions)."""
    from compiler.battle import Rules
    from compiler.battle.exact import TooManyStates, report, solve
    from compiler.resolve.core import ResolveError

    try:
        law = solve(Rules(model, exact=True), sc, list(policies))
    except TooManyStates as e:
        raise usage_error(str(e))
    except ResolveError as err:
        report_resolve_error(err, dict(compiled.sources))
        raise Exit(1)
    except ValueError as e:
        raise usage_error(str(e))
    out = report(model.id, sc, law, policies)
    if as_json:
        say(json.dumps(out, indent=2, ensure_ascii=False))
        return
    say(f"{model.title}: {sc.title} — exact law over {out['states']:,} positions, "
        f"policy {':'.join(dict.fromkeys(policies))}")
    for s in out["sides"]:
        say(f"  {s['title']}: wins {s['win_float']:.4%} exactly, "
            f"{s['survivors_mean_float']:.3f} models left on average")
    say(f"  draws: {out['draw_float']:.4%} exactly; {out['turns_mean_float']:.3f} game turns on average")
    say("  (--json gives each chance as an exact fraction)")
