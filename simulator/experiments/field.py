"""The ladder of player fields: who plays, and how strong (DESIGN.md "Player fields: the
ladder", docs/ladder.md).

A balance finding is only as good as its players, so every command that plays games takes a
*field*: a rung of the ladder or an explicit list of policies.

* ``scripted``: the scripted policies with their knobs as written;
* ``tuned``: the shipped tuned knob sets (``[policies.P_tuned]``), the policy itself where it
  has none;
* ``adapted``: the tuned sets re-tuned under the rules being measured (``P_adapted``, one
  adaptation per rules variant: :mod:`simulator.experiments.adapt`);
* ``learned``: a learned seat (a team in team mode) in the tuned field: a value function
  fitted to the search's values (:mod:`simulator.experiments.learn`), one ply a decision;
* ``search``: a search seat (Karmaggän in team mode: a search team) in the adapted field, its
  rollouts finished by the adapted copy of its rollout policy.

:class:`Ladder` turns (game, rules or a sweep's variants, field, player count) into the line-up
(each seat's policy before seating) and the rules carrying the knob sets that line-up needs;
``Ladder.plan`` does it to a whole :class:`~simulator.run.plan.Plan` and records the field
in it.  A line-up given by name (``--seats``, ``--policy``) names scripted policies, each
played by its copy on the rung.  A line-up with a learned seat gets the learned player's
weights for its rules (shipped, cached, or fitted then: ``learn.learned``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from simulator.core.errors import UserError
from simulator.core.game import LEARNED_POLICY, SEARCH_POLICY, Game, knob_values
from simulator.experiments.adapt import ADAPT_SEED, REPLICATES, Budget, adapted, adapted_name
from simulator.experiments.adapt_cache import Adaptation
from simulator.experiments.lab import scripted_field
from simulator.experiments.learn import reads_learned, with_learned
from simulator.experiments.strength import strongest_copy
from simulator.experiments.tune import line_up
from simulator.run.plan import Plan, Variant, with_knob_sets

RUNGS = ("scripted", "tuned", "adapted", "learned", "search")
SCRIPTED, TUNED, ADAPTED, LEARNED, SEARCH = RUNGS
DEFAULT_RUNGS = (SCRIPTED, TUNED, ADAPTED)  # what answers play unless told (issue 28)
# ``ask``'s: the learned rung too, near scripted speed with its weights shipped for every
# variant the questions play; its seat's edge is its skill, never a subject (issue 45)
ASK_RUNGS = (*DEFAULT_RUNGS, LEARNED)
STRONG_SEAT = {LEARNED: LEARNED_POLICY, SEARCH: SEARCH_POLICY}  # the rung's own seat (team)


@dataclass(frozen=True)
class Field:
    """A rung of the ladder, or an explicit list of policies cycled over the seats."""

    rung: str | None = None
    policies: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """As typed and as recorded in a dataset: the rung, or the policies comma-separated."""
        return self.rung or ",".join(self.policies)

    @property
    def folder(self) -> str:
        """A folder name for this field's output when a command plays several."""
        return self.rung or "+".join(self.policies)

    @property
    def adapts(self) -> bool:
        return self.rung in (ADAPTED, SEARCH)


def playable(game: Game, rungs: tuple[str, ...]) -> list[Field]:
    """The fields of ``rungs`` that ``game`` can play: a strong rung only where the game has
    that rung's own player (a default must not ask a game for a player it lacks)."""
    names = {p.name for p in game.policies}
    return [Field(r) for r in rungs if r not in STRONG_SEAT or STRONG_SEAT[r] in names]


def parse_fields(values, default: tuple[str, ...] = (SCRIPTED,)) -> list[Field]:
    """Fields from ``--field`` values (repeatable; each a comma list).  A list of rung names
    is that many fields; any other list is one field of explicit policies (so ``search``
    alone is the rung, ``search,value_investor`` two policies)."""
    out: list[Field] = []
    for value in values or default:
        items = tuple(s.strip() for s in str(value).split(",") if s.strip())
        if not items:
            raise UserError(f"--field needs a rung ({', '.join(RUNGS)}) or policies")
        if all(item in RUNGS for item in items):
            out += [Field(item) for item in items]
        else:
            out.append(Field(None, items))
    return list(dict.fromkeys(out))


def single_field(fields: list[Field], command: str) -> Field:
    """The one field of a command that plays one (its answer per rung is not written yet)."""
    if len(fields) != 1:
        raise UserError(
            f"{command} plays one --field at a time, not {', '.join(f.name for f in fields)}"
        )
    return fields[0]


def check_policies(game: Game, rules: dict, field: Field) -> None:
    """Every policy an explicit field names exists under ``rules``; a name that is neither a
    policy nor a rung is refused, naming both, and so is a list mixing rungs and policies."""
    known = {p.name for p in game.policy_set(rules)}
    unknown = [name for name in field.policies if name not in known]
    for name in unknown:
        if name not in RUNGS:
            raise UserError(
                f"unknown {game.name} policy '{name}', nor a rung ({', '.join(RUNGS)}) "
                f"(known policies: {', '.join(sorted(known))})"
            )
    if unknown:
        raise UserError(f"--field {field.name}: give rungs or policies, not both")


@dataclass
class Players:
    """Who plays: the field, the line-up and each variant's rules carrying its knob sets (and,
    for a field that adapts, each replicate's: ``Variant.replicates``)."""

    field: Field
    lineup: tuple[str, ...]
    variants: list[Variant]
    adaptations: list[list[Adaptation] | None]  # per variant: each replicate's, or None

    @property
    def rules(self) -> dict:
        """The first (for a single set of rules: the only) variant's rules."""
        return self.variants[0].rules


class Ladder:
    """Resolves fields into players for one game and player count, adapting rules as needed
    (``budget`` games per variant, on ``jobs`` workers or those of the dask cluster at
    ``scheduler``; cached, see :func:`simulator.experiments.adapt.adapted`)."""

    def __init__(
        self,
        game: Game,
        n_players: int,
        budget: Budget | None = None,
        jobs: int = 1,
        progress: bool = False,
        seed: int = ADAPT_SEED,
        scheduler: str | None = None,
    ):
        self.game, self.n_players = game, n_players
        self.budget, self.jobs, self.progress, self.seed = budget, jobs, progress, seed
        self.scheduler = scheduler

    # ---- names ----------------------------------------------------------------------------

    def copy_name(self, rules: dict, rung: str, policy: str) -> str:
        """The policy that plays a scripted ``policy`` on ``rung`` under ``rules`` (rules
        that carry the rung's knob sets); any other policy plays itself."""
        if policy not in scripted_field(self.game):
            return policy
        if rung in (TUNED, LEARNED):
            return strongest_copy(self.game, rules, policy)
        if rung in (ADAPTED, SEARCH):
            name = adapted_name(policy)
            return name if name in {p.name for p in self.game.policy_set(rules)} else policy
        return policy

    def field_names(self, rules: dict, field: Field, exclude: str | None = None) -> list[str]:
        """The field's policies (without a search seat): each scripted policy's copy on the
        rung (but ``exclude``'s), or the explicit policies."""
        if field.rung is None:
            check_policies(self.game, rules, field)
            return list(field.policies)
        return [self.copy_name(rules, field.rung, p) for p in scripted_field(self.game, exclude)]

    def opponents(self, rules: dict, field: Field, exclude: str | None = None) -> list[str]:
        """The field facing one policy (``tune``, ``challenge``): the rung's copies of the
        other scripted policies, a search seat first on the search rung; or the explicit
        policies."""
        names = self.field_names(rules, field, exclude)
        seat = STRONG_SEAT.get(field.rung)
        return [seat, *names] if seat else names

    def default_lineup(self, rules: dict, field: Field) -> tuple[str, ...]:
        names = self.field_names(rules, field)
        seat = STRONG_SEAT.get(field.rung)
        if seat:
            return line_up(rules, seat, names, self.n_players)
        return tuple(names[i % len(names)] for i in range(self.n_players))

    # ---- rules ----------------------------------------------------------------------------

    def require_search(self, field: Field) -> None:
        seat = STRONG_SEAT.get(field.rung)
        if seat and seat not in {p.name for p in self.game.policies}:
            raise UserError(f"{self.game.name} has no {seat} player: the {seat} rung needs one")

    def with_field(self, variant: Variant, field: Field, found: list[Adaptation] | None):
        """``variant`` played by the field: its rules carrying replicate 0's knob sets and
        the variant each replicate's (:class:`~simulator.run.plan.Variant`), for a field
        that adapts."""
        if found is None:
            return variant
        rules = with_knob_sets(variant.rules, found[0].knob_sets)
        if field.rung == SEARCH:
            policies = self.game.policy_set(rules)
            search = self.game.policy(SEARCH_POLICY, rules)
            rollout = knob_values(rules, policies, search).get("rollout_policy")
            if isinstance(rollout, str):
                base = policies[self.game.policy(rollout, rules).behaviour].name
                table = {**rules["policies"].get(SEARCH_POLICY, {})}
                table["rollout_policy"] = self.copy_name(rules, ADAPTED, base)
                rules["policies"] = {**rules["policies"], SEARCH_POLICY: table}
        return replace(variant, rules=rules, replicates=[a.knob_sets for a in found])

    def adaptations(
        self, rules_list: list[dict], field: Field, replicates: int = REPLICATES
    ) -> list[list[Adaptation] | None]:
        """Each rules' ``replicates`` adaptations for a field that adapts, else None each."""
        if not field.adapts:
            return [None] * len(rules_list)
        return adapted(
            self.game,
            rules_list,
            self.n_players,
            self.budget,
            self.seed,
            self.jobs,
            self.progress,
            self.scheduler,
            replicates,
        )

    # ---- what commands call ---------------------------------------------------------------

    def variants(
        self,
        variants: list[Variant],
        field: Field,
        seats: list[str] | None = None,
        replicates: int = REPLICATES,
    ) -> Players:
        """The field's players for a sweep: the line-up (``seats`` mapped onto the rung, or the
        rung's own line-up) and every variant's rules with its own knob sets (each variant
        adapted on its own, ``replicates`` times)."""
        self.require_search(field)
        if field.rung is None and seats:
            raise UserError("give --field POLICIES or --seats/--policy, not both")
        found = self.adaptations([v.rules for v in variants], field, replicates)
        out = [self.with_field(v, field, a) for v, a in zip(variants, found)]
        rules = out[0].rules
        if seats:
            lineup = tuple(self.copy_name(rules, field.rung, s) for s in seats)
        else:
            lineup = self.default_lineup(rules, field)
        for name in lineup:
            self.game.policy(name, rules)
        if reads_learned(self.game, rules, lineup):  # fitted for each variant's rules as given
            out = [
                replace(
                    o, rules=with_learned(self.game, o.rules, self.n_players, fitted_for=v.rules)
                )
                for o, v in zip(out, variants)
            ]
        return Players(field, lineup, out, found)

    def players(self, rules: dict, field: Field, seats: list[str] | None = None) -> Players:
        """The field's players under one set of rules, for the tools that play one set of
        knob sets (tune, skill, challenge, matrix, fit, sensitivity): one adaptation, replicate
        0, the first of those a dataset of the field plays."""
        return self.variants([Variant("base", rules)], field, seats, replicates=1)

    def plan(self, plan: Plan, field: Field, seats: list[str] | None = None) -> Plan:
        """``plan`` played by ``field``: its line-up, each variant's knob sets, the field
        recorded (``seats``: a line-up by name to map onto the rung, else the rung's own)."""
        players = self.variants(plan.variants, field, seats)
        return replace(
            copy.copy(plan),
            seats=list(players.lineup),
            n_players=len(players.lineup),
            variants=players.variants,
            field=field.name,
        )
