"""The Karmaggän world ``W``: a game's 23 arrays (engine.py's docstring) behind one reference.

The rules read a member as from a tuple, ``W[BOARD]`` (numba resolves the constant index at
compile time), but a call passes ``W`` as one pointer.  As a tuple, every call passed each
array's pointers, sizes, shape and strides, about 190 scalars: the instructions that take
values apart and put them together (mostly that) were 168,009 of the 272,584 numba generated
for the engine and its search, and their cold compile took 47-49 s of CPU, against 32-36 s
with ``W`` behind a reference (same datasets, same speed).

``W`` is a numba structref (one field per member, named by :data:`MEMBERS`) made by
:func:`core.new_world`; this module teaches numba to read ``W[k]`` for a constant ``k``, also
inside kernels compiled without reference counting (``simulator.core.kernel.rule``).  In Python, a
world is a :class:`World` whose ``W[BOARD]`` is the game's very board array (tests and
notebooks poke at single rules with it); with ``NUMBA_DISABLE_JIT=1`` it is a plain tuple.
"""

import numba
from numba import njit
from numba.core import cgutils, imputils, types
from numba.core.extending import lower_builtin
from numba.core.runtime.nrtdynmod import _meminfo_struct_type
from numba.core.typing.templates import AbstractTemplate, infer, signature
from numba.experimental import structref

from simulator.games.karmaggan import state

MEMBERS = (
    "cfg",
    "cells",
    "rollers",
    "cards",
    "tcards",
    "beats",
    "knob_table",
    "policy_ids",
    "rng",
    "game",
    "board",
    "figs",
    "players",
    "hands",
    "decks",
    "acts",
    "options",
    "dcache",
    "queue",
    "trace",
    "timeline",
    "adj",
    "scores",
)
assert all(getattr(state, name.upper()) == k for k, name in enumerate(MEMBERS))


@structref.register
class WorldType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class World(structref.StructRefProxy):
    """A world in Python: ``W[BOARD]`` is the game's board array itself."""

    def __getitem__(self, k):
        if "members" not in self.__dict__:  # a world's members never change once made
            self.members = members_of(self)
        return self.members[k]


structref.define_proxy(World, WorldType, MEMBERS)


@infer
class StaticGetItemWorld(AbstractTemplate):
    """``W[k]`` for a constant ``k``: the type of member ``k``."""

    key = "static_getitem"

    def generic(self, args, kws):
        world, k = args
        if isinstance(world, WorldType) and isinstance(k, int) and 0 <= k < len(MEMBERS):
            return signature(world.field_dict[MEMBERS[k]], *args)


@lower_builtin("static_getitem", WorldType, types.IntegerLiteral)
def static_getitem_world(context, builder, sig, args):
    """``W[k]``: member ``k`` read from the world's data."""
    world_type = sig.args[0]
    world, k = args
    data = cgutils.create_struct_proxy(world_type.get_data_type())(
        context, builder, ref=data_pointer(context, builder, world_type, world)
    )
    member_type = world_type.field_dict[MEMBERS[k]]
    return imputils.impl_ret_borrowed(context, builder, member_type, getattr(data, MEMBERS[k]))


def data_pointer(context, builder, world_type, world):
    """Where a world's members are: the data of its meminfo, read as numba's own
    ``NRT_MemInfo_data_fast`` reads it (numba's helper for it needs reference counting on)."""
    meminfo = cgutils.create_struct_proxy(world_type)(context, builder, value=world).meminfo
    fields = builder.bitcast(meminfo, _meminfo_struct_type.as_pointer())
    data = builder.load(cgutils.gep(builder, fields, 0, 3))
    value_type = context.data_model_manager[world_type.get_data_type()].get_value_type()
    return builder.bitcast(data, value_type.as_pointer())


@njit(cache=True)
def members_of(W):
    """The members of ``W`` as a tuple, in the order of MEMBERS (Python reads them through it)."""
    return (
        W.cfg,
        W.cells,
        W.rollers,
        W.cards,
        W.tcards,
        W.beats,
        W.knob_table,
        W.policy_ids,
        W.rng,
        W.game,
        W.board,
        W.figs,
        W.players,
        W.hands,
        W.decks,
        W.acts,
        W.options,
        W.dcache,
        W.queue,
        W.trace,
        W.timeline,
        W.adj,
        W.scores,
    )


if numba.config.DISABLE_JIT:

    def World(*members):  # noqa: F811  (plain Python: the members in a tuple)
        return members
