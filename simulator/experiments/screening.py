"""What a sensitivity screen varies: rules keys as Morris factors (numbers) and as paired
choices (switches and categorical values), with the keys it cannot vary and why.

* A **factor** moves one or more numeric keys together across their ranges: ``--range`` factors
  on each value (a list of numbers is scaled as a whole) or ``K=LOW:HIGH``; an integer key
  keeps to the steps the game's checks allow.  The ASSUMED numbers of one card (an entry of an
  array of tables, e.g. ``characters[Nadia]``: attributes, ability_value, karnaxis_value) are
  one factor, named after the card; a card's number that scaling cannot move (a 0, a symbol
  such as 1, 3 or 5 players) moves over the values the other cards print.
* A **choice** is a key with alternatives, each compared with the printed value on the same
  games: a boolean (the other value), a string field of a card (the values the other cards of
  its table print), or what the game names (``Game.choices``: Karmaggän's mirrored start
  layouts).  Alternatives the game's checks refuse are left out.

:func:`plan_screen` builds both from the keys a user names and, with ``assumed``, from every
ASSUMED key of the rules (:mod:`simulator.core.assumed`) that is in play at the player count
and that the rules have not replaced (a designer's real value is not assumed any more).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulator.core.assumed import assumed_keys, value_at
from simulator.core.errors import UserError
from simulator.core.game import Game
from simulator.core.rules import RulesError, index_key, key_parts, lookup, toml_value
from simulator.experiments.keys import (
    accepts,
    checked_range,
    key_step,
    numeric_value,
    on_lattice,
    parse_span,
    scaled,
    with_values,
)

LEVELS = 4  # Morris grid levels; a step moves a factor by DELTA of its range
DELTA = LEVELS / (2 * (LEVELS - 1))
NO_ALTERNATIVES = (
    "no alternative the rules data names (only numbers, switches, card text and the "
    "layouts a game names can be screened)"
)
NOT_IN_PLAY = "not in play at {n} players"
REPLACED = "replaced by the rules given (no longer the assumed value)"
VALUE = "value"  # a card's amount, which its text gives a meaning (an event's effect)


@dataclass(frozen=True)
class Member:
    """One numeric key of a factor and its range: factors on its value (``absolute`` False) or
    its values."""

    key: str
    default: object  # a number or a list of numbers
    low: float
    high: float
    absolute: bool = False
    step: int = 1  # an integer key's values are default + k * step
    levels: tuple = ()  # or the values it takes, in order (a card's symbol: 1, 3, 5 players)

    def value(self, x: float):
        """The key's value at position ``x`` in [0, 1] of its range."""
        if self.levels:
            return self.levels[int(round(float(x) * (len(self.levels) - 1)))]
        at = self.low + float(x) * (self.high - self.low)
        if isinstance(self.default, list):
            return scaled(self.default, at)
        value = at if self.absolute else self.default * at
        return (
            on_lattice(value, self.default, self.step) if isinstance(self.default, int) else value
        )


@dataclass(frozen=True)
class Factor:
    """A Morris factor: its name (the key, or the card whose numbers move together) and the
    keys it moves, all to the same position of their ranges."""

    key: str
    members: tuple[Member, ...]

    def values(self, x: float) -> dict:
        return {m.key: m.value(x) for m in self.members}


@dataclass(frozen=True)
class Choice:
    """A key and its alternatives, each compared with its printed value ``default``; a card's
    text takes the other card's companion values with it (``companions[j]``: e.g. the
    ``ability_value`` of the card whose ``ability`` it borrows)."""

    key: str
    default: object
    alternatives: tuple
    companions: tuple = ()  # per alternative, {key: value} set with it; () when none

    def values(self, j: int) -> dict:
        """Every key the alternative ``j`` sets."""
        return {self.key: self.alternatives[j], **(self.companions[j] if self.companions else {})}

    def label(self, j: int) -> str:
        """The alternative as TOML text, its companions after it."""
        extra = self.companions[j] if self.companions else {}
        return toml_value(self.alternatives[j]) + "".join(
            f", {k.rsplit('.', 1)[-1]} = {toml_value(v)}" for k, v in extra.items()
        )


@dataclass
class ScreenPlan:
    factors: list[Factor] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # {"key", "reason"}
    rests_on: list[str] = field(default_factory=list)  # the ASSUMED keys in play, unreplaced

    @property
    def keys(self) -> list[str]:
        """Every key the screen varies (a card factor's keys one by one)."""
        return [m.key for f in self.factors for m in f.members] + [c.key for c in self.choices]

    def skip(self, key: str, error: RulesError | str) -> None:
        reason = error if isinstance(error, str) else str(error).split(": ", 1)[-1]
        self.skipped.append({"key": key, "reason": reason})


def plan_screen(
    game: Game,
    rules: dict,
    named: list[str],
    assumed: bool,
    scale: tuple[float, float],
    n_players: int,
    spans: dict[str, str] | None = None,
) -> ScreenPlan:
    """The factors and choices of the keys the user named (``K`` or ``K=LOW:HIGH``; each must
    be screenable), then with ``assumed`` of every other ASSUMED key; ``spans`` gives
    ``LOW:HIGH`` ranges of assumed numbers (an assumed 0 cannot be scaled)."""
    if not named and not assumed:
        raise UserError("give --keys K1,K2,.. or --assumed")
    plan, spans = ScreenPlan(), spans or {}
    for text in named:
        key, sep, span = text.partition("=")
        key = key.strip()
        if isinstance(lookup(rules, key), dict):
            if sep:
                raise RulesError(key, "a card takes --range factors, not LOW:HIGH")
            card_factor(game, rules, key, numeric_fields(rules, key), scale, spans, plan)
            if not plan.factors or plan.factors[-1].key != key:
                raise RulesError(key, "no number of this card can be screened")
        elif is_choice(game, rules, key, n_players):
            plan.choices.append(make_choice(game, rules, key, n_players))
        else:
            plan.factors.append(Factor(key, (make_member(game, rules, key, span or None, scale),)))
    plan.rests_on = rests_on(game, rules, n_players)
    if assumed:
        add_assumed(game, rules, n_players, scale, spans, plan)
    if len(plan.keys) != len(set(plan.keys)):
        raise UserError("each key may be screened once")
    if not plan.factors and not plan.choices:
        reasons = "; ".join(f"{s['key']}: {s['reason']}" for s in plan.skipped)
        raise UserError("no key to screen" + (f" ({reasons})" if reasons else ""))
    return plan


def rests_on(game: Game, rules: dict, n_players: int) -> list[str]:
    """The ASSUMED keys (labelled) in play at ``n_players`` that ``rules`` has not replaced:
    what every finding of these games rests on."""
    defaults = game.default_rules()
    return [
        item.label
        for item in assumed_keys(game.rules_path).values()
        if in_play(game, rules, item.label, n_players)
        and value_at(rules, item.key) == value_at(defaults, item.key)
    ]


def add_assumed(game, rules, n_players, scale, spans, plan: ScreenPlan) -> None:
    """Every ASSUMED key not named yet that the plan rests on, by kind (module doc); those the
    rules replaced are skipped, with why."""
    chosen = {index_key(rules, k) for k in plan.keys} | {
        index_key(rules, f.key) for f in plan.factors
    }
    rest = set(plan.rests_on)
    cards: dict[str, list[str]] = {}  # card label -> its numeric assumed keys
    for item in assumed_keys(game.rules_path).values():
        key = item.label
        if item.key in chosen or any(item.key.startswith(c + ".") for c in chosen):
            continue
        if key not in rest:
            if in_play(game, rules, key, n_players):
                plan.skip(key, REPLACED)
            continue
        try:
            if is_choice(game, rules, key, n_players):
                plan.choices.append(make_choice(game, rules, key, n_players))
            elif card_of(key):
                cards.setdefault(card_of(key), []).append(key)
            else:
                span = spans.get(key)
                plan.factors.append(Factor(key, (make_member(game, rules, key, span, scale),)))
        except RulesError as e:
            plan.skip(key, e)
    for card, keys in cards.items():
        card_factor(game, rules, card, keys, scale, spans, plan)


def card_of(key: str) -> str | None:
    """The card (entry of an array of tables) a key belongs to: ``characters[Nadia]``."""
    at = key.rfind("]")
    return key[: at + 1] if at >= 0 and key[at + 1 :].startswith(".") else None


def numeric_fields(rules: dict, card: str) -> list[str]:
    entry = lookup(rules, card)
    return [
        f"{card}.{name}"
        for name, value in entry.items()
        if isinstance(value, (int, float, list)) and not isinstance(value, bool)
    ]


def card_factor(game, rules, card: str, keys: list[str], scale, spans, plan: ScreenPlan) -> None:
    """One factor of a card's numbers (the keys the checks let it move together)."""
    members = []
    for key in keys:
        try:
            members.append(make_member(game, rules, key, spans.get(key), scale))
        except RulesError as e:
            try:
                members.append(printed_levels(game, rules, key))
            except RulesError:
                plan.skip(key, e)
    while members:
        problem = refused_levels(game, rules, members)
        if problem is None:
            plan.factors.append(Factor(card, tuple(members)))
            return
        culprit = next((m for m in members if same_key(rules, m.key, problem.key)), members[-1])
        plan.skip(culprit.key, f"refused with the card's other numbers ({problem})")
        members.remove(culprit)


def printed_levels(game: Game, rules: dict, key: str) -> Member:
    """A card's number that scaling cannot move (a 0, a symbol such as 1, 3 or 5 players) as
    a member over the values the other cards of its table print, in order."""
    default = numeric_value(rules, key)
    levels = sorted(
        v
        for v in sibling_values(rules, key)
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    )
    if len(levels) < 2 or not all(accepts(game, rules, key, v) for v in levels):
        raise RulesError(key, "the other cards print no value the checks accept")
    return Member(key, default, levels[0], levels[-1], absolute=True, levels=tuple(levels))


def refused_levels(game, rules, members: list[Member]) -> RulesError | None:
    """The checks' objection to the members moved together to a grid level, if any."""
    for x in np.linspace(0, 1, LEVELS):
        try:
            game.validate(with_values(rules, {m.key: m.value(x) for m in members}))
        except RulesError as e:
            return e
    return None


def same_key(rules: dict, a: str, b: str) -> bool:
    try:
        return index_key(rules, a) == index_key(rules, b)
    except RulesError:
        return False


def make_member(game: Game, rules: dict, key: str, span: str | None, scale) -> Member:
    """A numeric key and its range, cut to what the game's checks accept (RulesError if the
    key cannot be screened)."""
    default = numeric_value(rules, key)
    step = 1 if isinstance(default, list) else key_step(game, rules, key)
    if span is not None:
        low, high = parse_span(key, span)
        if isinstance(default, list):
            raise RulesError(key, "a list takes --range factors, not LOW:HIGH")
        member = Member(key, default, low, high, absolute=True, step=step)
    elif not any(default if isinstance(default, list) else [default]):
        raise RulesError(key, f"its value is 0, so scaling cannot move it; give {key}=LOW:HIGH")
    else:
        member = Member(key, default, *scale, step=step)
    ends = [member.value(0.0), member.value(1.0)]
    if not all(accepts(game, rules, key, v) for v in ends):
        if isinstance(default, list) and not member.absolute:
            return scaled_list(game, rules, member, ends)
        if member.absolute:
            raise RulesError(key, f"the game's checks refuse {ends[0]} or {ends[1]}")
        low, high = checked_range(game, rules, key, *sorted(ends), step)
        member = Member(key, default, low, high, absolute=True, step=step)
        ends = [member.value(0.0), member.value(1.0)]
    if ends[0] == ends[1]:
        raise RulesError(key, f"its range holds one value ({ends[0]})")
    for x in np.linspace(0, 1, LEVELS)[1:-1]:  # the grid levels inside the range, too
        if not accepts(game, rules, key, member.value(x)):
            raise RulesError(
                key, f"the game's checks refuse {member.value(x)}, a level of its range"
            )
    return member


def scaled_list(game: Game, rules: dict, member: Member, refused: list) -> Member:
    """A list whose scaled ends the checks refuse, with the factors halved toward 1 (up to
    three times) until they accept both ends (a lot of 0 shares, an index past the board)."""
    low, high = member.low, member.high
    for _ in range(3):
        low, high = 1 - (1 - low) / 2, 1 + (high - 1) / 2
        narrower = Member(member.key, member.default, low, high)
        ends = [narrower.value(0.0), narrower.value(1.0)]
        if ends[0] != ends[1] and all(accepts(game, rules, member.key, v) for v in ends):
            return narrower
    raise RulesError(member.key, f"the game's checks refuse {refused[0]} or {refused[1]}")


def game_choices(game: Game, rules: dict, key: str, n_players: int) -> list | None:
    return game.choices(rules, key, n_players) if game.choices else None


def in_play(game: Game, rules: dict, key: str, n_players: int) -> bool:
    """False when the game says the key does not matter at ``n_players`` (e.g. another
    count's start layout)."""
    try:
        return game_choices(game, rules, key, n_players) != []
    except RulesError:
        return True


def is_choice(game: Game, rules: dict, key: str, n_players: int) -> bool:
    """Whether a key is screened as a choice (not as a Morris factor)."""
    try:
        if game_choices(game, rules, key, n_players) is not None:
            return True
    except RulesError:
        return True
    try:
        numeric_value(rules, key)
        return False
    except RulesError:  # a switch, a text, a layout: paired, if it has alternatives
        return True


def make_choice(game: Game, rules: dict, key: str, n_players: int) -> Choice:
    """A key and the alternatives the game's checks accept (RulesError if it has none)."""
    default = lookup(rules, key)
    offered = game_choices(game, rules, key, n_players)
    if offered == []:
        raise RulesError(key, NOT_IN_PLAY.format(n=n_players))
    if offered is None and isinstance(default, str) and card_of(key):
        return card_text(game, rules, key)
    if offered is None:
        if not isinstance(default, bool):
            raise RulesError(key, NO_ALTERNATIVES)
        offered = [not default]
    accepted = [v for v in offered if accepts(game, rules, key, v)]
    if not accepted:
        raise RulesError(key, f"the game's checks refuse all {len(offered)} alternatives")
    return Choice(key, default, tuple(accepted))


def card_text(game: Game, rules: dict, key: str) -> Choice:
    """A card's text field and the texts the other cards of its table print, each with that
    card's companion values: the fields named after it (``ability`` takes ``ability_value``
    along, ``karnaxis`` its ``karnaxis_value`` and ``karnaxis_job``), and a card's ``value``
    (an event's effect and its amount)."""
    card, field = card_of(key), key_parts(key)[-1]
    entry = lookup(rules, card)
    companions = [f for f in entry if f.startswith(field + "_") or f == VALUE != field]
    texts, offered = {entry[field]}, []
    for other in sibling_entries(rules, key):
        if other.get(field) is not None and other[field] not in texts:
            texts.add(other[field])
            offered.append((other[field], {f"{card}.{f}": other[f] for f in companions}))
    if not offered:
        raise RulesError(key, "no other card of its table prints another value")
    accepted = [
        (text, extra)
        for text, extra in offered
        if valid(game, with_values(rules, {key: text, **extra}))
    ]
    if not accepted:
        raise RulesError(key, f"the game's checks refuse all {len(offered)} alternatives")
    return Choice(
        key,
        entry[field],
        tuple(text for text, _ in accepted),
        tuple(extra for _, extra in accepted) if companions else (),
    )


def valid(game: Game, rules: dict) -> bool:
    try:
        game.validate(rules)
        return True
    except RulesError:
        return False


def sibling_entries(rules: dict, key: str) -> list[dict]:
    """The cards of the table a card's key belongs to."""
    table = lookup(rules, card_of(key).rsplit("[", 1)[0], missing=None) if card_of(key) else None
    return table if isinstance(table, list) and all(isinstance(e, dict) for e in table) else []


def sibling_values(rules: dict, key: str) -> list:
    """The distinct values the field of ``key`` takes in every card of its table, in order."""
    field, values = key_parts(key)[-1], []
    for entry in sibling_entries(rules, key):
        if entry.get(field) is not None and entry[field] not in values:
            values.append(entry[field])
    return values
