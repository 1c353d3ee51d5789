"""Bit masks of board spaces (bit s = space s; masks are non-negative int64, so at most 63
spaces): the count of a mask and the index of its lowest space.

Compiled, they are the CPU's popcount and count-trailing-zeros instructions (LLVM intrinsics);
under NUMBA_DISABLE_JIT=1 they are the same functions in plain Python.
"""

from numba import config
from numba.core import types
from numba.extending import intrinsic

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


if config.DISABLE_JIT:

    def count(mask):
        """How many spaces a mask holds."""
        return bin(int(mask)).count("1")

    def lowest(mask):
        """The lowest space of a non-empty mask."""
        return (int(mask) & -int(mask)).bit_length() - 1
else:

    @accessor
    def count(mask):
        """How many spaces a mask holds."""
        return _ctpop(mask)

    @accessor
    def lowest(mask):
        """The lowest space of a non-empty mask."""
        return _cttz(mask)


@accessor
def bit(space):
    """The mask of one space."""
    return 1 << space
