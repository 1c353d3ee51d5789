"""Bit masks of a set of items (bit i = item i: a board space, a card; masks are non-negative
int64, so at most 63 items): the count of a mask and the index of its lowest item.

Each is plain Python (as under NUMBA_DISABLE_JIT=1, or run as plain Python by a test) that
compiles to the CPU's popcount and count-trailing-zeros instructions (LLVM intrinsics, through
numba's ``overload``).
"""

from numba.core import types
from numba.extending import intrinsic, overload

from simulator.core.kernel import accessor


@intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def _cttz(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return types.int64(types.int64), codegen


def count(mask):
    """How many items a mask holds."""
    return bin(int(mask)).count("1")


def lowest(mask):
    """The lowest item of a non-empty mask."""
    return (int(mask) & -int(mask)).bit_length() - 1


@overload(count)
def _compiled_count(mask):
    return lambda mask: _ctpop(mask)


@overload(lowest)
def _compiled_lowest(mask):
    return lambda mask: _cttz(mask)


@accessor
def bit(item):
    """The mask of one item."""
    return 1 << item
