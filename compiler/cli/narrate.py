"""A battle in words, for ``warscribe play``: the header, one line per event, the result.

Every unit is named with its side ("Orks: Ork Boy"), every rule by its title with where to read
it: its page on the built site when ``--site URL`` (or the ``site`` setting) says where the site
is, else its file and line. Counts, articles and verbs come from :mod:`compiler.words`. Author
text (titles) is escaped for Rich, so that a title is printed as written, never read as markup,
and its control characters are shown escaped, never obeyed (:func:`compiler.terminal.rich_text`).

A volley that carries its dice (:mod:`compiler.battle.dice`: ``"dice": [{"step": "shots", "passed":
3}, {"step": "hits", "rule": "hit", "rolled": 3, "faces": [6, 5, 3], "passed": 2}]``) shows them
one step a line, each test's rule cited: ``shots: 3``, ``hits: 6 5 3 → 2 (To hit, …)``; a step
whose faces are not shown, its counts and why (``hits: 2 of 3 (faces not shown: the test
re-rolls)``); a volley with a ``dice_note``, why it shows no dice.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from compiler.terminal import rich_text as escape
from compiler.words import a_or_an, agree, chance_words, plural

if TYPE_CHECKING:
    from compiler import ast as A
    from compiler.model.ruleset import Ruleset

__all__ = ["Narrator", "label_units_by_side"]

#: How long a status lasts, in words.
UNTIL = {"phase": "until the end of the phase", "turn": "until the end of the turn",
         "game turn": "until the end of the game turn"}


def label_units_by_side(units: Sequence[Any], side_titles: Sequence[str]) -> None:
    """Prefix each unit's label with its side's title ("Orks: Ork Boy"): both sides may field
    units of the same name, and every line, choice and log of a played battle must tell them apart."""
    for unit in units:
        prefix = f"{side_titles[unit.side]}: "
        if not unit.label.startswith(prefix):
            unit.label = prefix + unit.label


class Narrator:
    """The words of one battle of ``model``."""

    def __init__(self, model: Ruleset, side_titles: Sequence[str], site: str | None = None,
                 side_ids: Sequence[str] = ()) -> None:
        from compiler.site.sitemap import SiteMap

        self.model = model
        self.sides = tuple(side_titles)
        self.side_title = dict(zip(side_ids, side_titles))  # an event names a side by its id
        self.objectives: dict[str, str] = {}  # an objective's id → its title (the scenario's)
        self.held: dict[str, Any] | None = None  # who held each objective when last told
        self.site = (site.rstrip("/") + "/") if site else None
        self.places = SiteMap((model,))

    # -- names ------------------------------------------------------------------------------
    def title(self, decl_id: str | None) -> str:
        """A declaration's title (escaped), or its id when it has none."""
        if not decl_id:
            return ""
        place = self.places.get(self.model.id, decl_id)
        decl = self.model.get(decl_id)
        return escape(getattr(decl, "title", None) or (place.title if place else None) or decl_id)

    def state(self, decl_id: str) -> str:
        """A status or situation as a word: its title when that is a name, else its id in words
        (a situation's title is often a sentence: "The squad declared this assault…")."""
        title = self.title(decl_id)
        if title.endswith((".", "!", "?")) or len(title.split()) > 3:
            return escape(decl_id.replace("_", " "))
        if len(title) > 1 and title[0].isupper() and title[1].islower():  # mid-sentence: "is no longer on overwatch"
            return title[0].lower() + title[1:]
        return title

    def where(self, decl_id: str) -> str | None:
        """Where to read a rule: its page on the built site, or its file and line."""
        place = self.places.get(self.model.id, decl_id)
        if self.site and place is not None:
            page = place.page[:-len(".md")]
            page = page[:-len("index")] if page.endswith("index") else page + "/"
            return f"{self.site}{page}#{place.anchor}"
        decl = self.model.get(decl_id)
        span = getattr(decl, "span", None)
        return f"{span.file}:{span.line}" if span is not None else None

    def cite(self, decl_id: str | None) -> str:
        """A rule named, with where to read it, dimmed: ``(Shooting, rules/x/rulebook.rules:120)``."""
        if not decl_id:
            return ""
        where = self.where(decl_id)
        if where is None:
            return f"[dim]({self.title(decl_id)})[/dim]"
        shown = escape(where)
        link = f"[link={where}]{shown}[/link]" if where.startswith(("http://", "https://")) else shown
        return f"[dim]({self.title(decl_id)}, {link})[/dim]"

    @staticmethod
    def unit(label: str) -> str:
        return f"[bold]{escape(label)}[/bold]"

    # -- the battle -------------------------------------------------------------------------
    def header(self, scenario: A.Scenario, seed: int, units: Sequence[Any]) -> list[str]:
        """What is played: the scenario, the ruleset, the seed, each side's units with their models."""
        self.objectives = {o.id: o.title or o.id for o in scenario.objectives}
        self.held = None
        lines = [f"[bold]{escape(scenario.title or scenario.id)}[/bold] — {escape(self.model.title)} (seed {seed})"]
        for s, side in enumerate(self.sides):
            listed = [f"{escape(u.label.split(': ', 1)[-1])} ({plural(u.models, 'model')})" for u in units if u.side == s]
            lines.append(f"  {escape(side)}: " + ", ".join(listed))
        return lines

    def line(self, event: dict[str, Any]) -> str | None:
        """One event in words (None for an event a reader need not see)."""
        kind = event["event"]
        unit = self.unit(event["unit"]) if "unit" in event else ""
        if kind == "start":
            first = event.get("first_title") or event["first"]
            gap = event["distance"]
            apart = f"{gap:g}" if isinstance(gap, (int, float)) else str(gap)
            return f"{_agree(first, 'goes', 'go')} first; the forces stand {apart}\" apart."
        if kind == "turn":
            return f"\n[bold cyan]— Game turn {event['turn']}: {escape(str(event.get('title', event['side'])))} —[/bold cyan]"
        if kind == "move":
            if "objective" in event:
                return (f"{unit} moves {event['inches']}\": {event['distance']:g}\" from "
                        f"{escape(str(event['objective']))}.")
            return f"{unit} moves {event['inches']}\": {event['distance']:g}\" from the nearest enemy."
        if kind == "volley":
            return self.volley(event)
        if kind == "test" and event.get("result") is not None:  # a roll with several outcomes (``takes``)
            return (f"{unit} takes {a_or_an('test')} {self.cite(event['rule'])}: "
                    f"{escape(str(event['result']))}, a {chance_words(event['chance'])} chance.")
        if kind == "test":
            verdict = "[green]passed[/green]" if event["passed"] else "[red]failed[/red]"
            return (f"{unit} takes {a_or_an('test')} {self.cite(event['rule'])}: "
                    f"a {chance_words(event['chance'])} chance, {verdict}.")
        if kind == "activation":
            verdict = ("[red]bust[/red]: the turn passes" if event["bust"]
                       else plural(event["successes"], "action"))
            return (f"{unit} rolls {plural(event['dice'], 'activation die', 'activation dice')} "
                    f"{self.cite(event['rule'])}, each a {chance_words(event['chance'])} chance: {verdict}.")
        if kind == "rest":
            return (f"{unit}: its {self.title(event['weapon'])} rests for {plural(event['turns'], 'turn')}"
                    f" {self.cite(event['rule'])}.")
        if kind == "disengage":
            foes = ", ".join(self.unit(f) for f in event.get("foes") or ())
            return f"{unit} breaks off from {foes}." if foes else f"{unit} breaks off."
        if kind == "left_melee":
            return f"{unit} leaves the melee."
        if kind == "charge_roll":
            short = "" if event["rolled"] >= event["distance"] else ": short, it moves that far and stops"
            return (f"{unit} charges {self.unit(event['target'])}, {event['distance']:g}\" away, and rolls "
                    f"{event['rolled']}\"{short}.")
        if kind == "engage":
            status = f" ({self.state(event['status'])})" if event.get("status") else ""
            return f"{unit} engages {self.unit(event['target'])}{status}."
        if kind == "no_target":
            return f"{unit}: no enemy it may aim at."
        if kind == "out_of_reach":
            if event.get("reach") is None:
                return f"{unit}: no enemy in reach of its weapons."
            return f"{unit}: no enemy within {event['reach']:g}\"."
        if kind == "status" and event.get("until") == "now":
            return f"{unit} is no longer {self.state(event['status'])}."
        if kind == "status":
            until = UNTIL.get(event.get("until") or "", "")
            return f"{unit}: {self.state(event['status'])}" + (f", {until}" if until else "") + "."
        if kind == "destroyed":
            return f"[red]{unit} is destroyed[/red]."
        if kind == "activated":
            own = self.unit(event["unit"].split(": ", 1)[-1] if event["unit"].startswith(event["title"] + ": ")
                            else event["unit"])
            return f"{_agree(event['title'], 'activates', 'activate')} {own}."
        if kind == "order":
            return f"{unit} is given the order [bold]{escape(event['title'])}[/bold]."
        if kind == "end":
            return self.end(event)
        return self.other(kind, event, unit)

    def side(self, side_id: str | None) -> str:
        """A side named by its id, in words: its title."""
        return escape(self.side_title.get(side_id or "", side_id or "no one"))

    def other(self, kind: str, event: dict[str, Any], unit: str) -> str | None:
        """The events of actions, reactions, counters, objectives and scores."""
        if kind == "action":
            cite = f" {self.cite(event['action'])}" if self.where(event["action"]) else ""
            return f"{unit} takes the action [bold]{escape(event.get('title') or event['action'])}[/bold]{cite}."
        if kind == "reaction":
            return f"{unit} reacts: {self.state(event['reaction'])} by {self.unit(event['cause'])}."
        if kind == "spent":
            return f"{unit} has spent its action on the reaction: it does not act again this game turn."
        if kind == "out_of_sight":
            return f"{unit}: no enemy in sight."
        if kind == "initiative":
            first = event.get("first_title") or self.side(event["first"])
            tie = ""
            if event.get("tie"):
                tie = " (a tie: the order is kept)" if event.get("ties") == "keep" else " (a tie: the order swaps)"
            return f"Initiative: {_agree(first, 'goes', 'go')} first{tie}."
        if kind == "removed":
            when = "now that it has acted" if event.get("acted") else "as the phase ends"
            return (f"{unit}: {plural(event['removed'], 'model')} removed {when}; "
                    f"{plural(event['left'], 'model')} left.")
        if kind == "counter":
            change = event["change"]
            why = event.get("why") or ""
            because = (f" {self.cite(why)}" if self.model.get(why) is not None
                       else f" ({escape(why.replace('_', ' '))})" if why else "")
            return (f"{unit}: {self.state(event['counter'])} {'rises' if change > 0 else 'falls'} by {abs(change)} "
                    f"to {event['value']}{because}.")
        if kind == "control":
            holders = event.get("holders") or {}
            if holders == self.held:
                return None  # told already: nothing changed hands
            self.held = dict(holders)
            said = [f"{escape(self.objectives.get(o, o))} "
                    + (f"held by {self.side(h)}" if h is not None else "held by no one")
                    for o, h in sorted(holders.items())]
            return "Objectives: " + "; ".join(said) + "." if said else None
        if kind == "score":
            points = float(event["points"])
            amount = plural(int(points), "point") if points.is_integer() else f"{points:g} points"
            side = self.side_title.get(event["to"], event["to"])
            why = f" for {escape(str(event['why']))}" if event.get("why") else ""
            return (f"{_agree(side, 'scores', 'score')} {amount}{why} {self.cite(event['score'])}".rstrip()
                    + f"; {float(event['total']):g} in all.")
        return None

    def volley(self, event: dict[str, Any]) -> str:
        weapon = f", with {self.title(event['weapon'])}" if event.get("weapon") else ""
        removed = event["removed"]
        head = (f"{self.unit(event['unit'])} ({plural(event['models'], 'model')}) → {self.unit(event['target'])}"
                f"{weapon} {self.cite(event['rule'])}")
        dice = "".join(f"\n    {self.step_dice(d)}" for d in event.get("dice") or ())
        if event.get("dice_note"):
            dice += f"\n    [dim](dice not shown: {escape(str(event['dice_note']))})[/dim]"
        return (f"{head}:{dice}{' ' if not dice else chr(10) + '    '}[bold]{plural(removed, 'model')} removed[/bold] "
                f"(on average {event['mean']:.2f}); {plural(event['left'], 'model')} left.")

    def step_dice(self, d: dict[str, Any]) -> str:
        """One step of a volley's dice: ``hits: 6 5 3 3 1 → 2 (To hit, file:line)``; the number of
        dice alone for the step that counts them; the counts alone, with why, when the faces are not
        shown."""
        step = escape(str(d["step"]))
        cite = f" {self.cite(d['rule'])}" if d.get("rule") else ""
        if "faces" in d:
            faces = " ".join(str(f) for f in d["faces"]) or "no dice"
            return f"{step}: {faces} → {d['passed']}{cite}"
        if "rolled" in d:
            note = f" [dim](faces not shown: {escape(str(d['note']))})[/dim]" if d.get("note") else ""
            return f"{step}: {d['passed']} of {d['rolled']}{note}{cite}"
        return f"{step}: {d['passed']}"

    def end(self, event: dict[str, Any]) -> str:
        reason = event.get("reason") or ""
        how = (self.cite(reason) if self.model.get(reason) is not None else f"({escape(reason.replace('_', ' '))})") \
            if reason else ""
        if event.get("winner"):
            verdict = f"[bold]{_agree(event.get('winner_title') or event['winner'], 'wins', 'win')}[/bold]"
        else:
            verdict = "[bold]A draw[/bold]"
        parts = [f"\n{verdict} {how}".rstrip()]
        scores = event.get("scores") or []
        if any(scores):
            parts.append("score: " + ", ".join(f"{escape(t)} {s:g}" for t, s in zip(self.sides, scores)))
        parts.append("models left: " + ", ".join(f"{escape(t)} {n}" for t, n in zip(self.sides, event["survivors"])))
        return "; ".join(parts) + "."



def _agree(subject: str, singular: str, plural_verb: str) -> str:
    """:func:`~compiler.words.agree` on the name as written, then escaped for Rich."""
    verb = agree(subject, singular, plural_verb)[len(subject) + 1:]
    return f"{escape(subject)} {verb}"
