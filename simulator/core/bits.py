"""Bit masks of a set of items (bit i = item i: a board space, a card; masks are non-negative
int64, so at most 63 items): the count of a mask, the index of its lowest item, and the
index of its i-th lowest (a decision's options kept as a mask: option i is its i-th item).

Each is plain Python (as under NUMBA_DISABLE_JIT=1, or run as plain Python by a test) that
compiles to the CPU's popcount and count-trailing-zeros instructions (LLVM intrinsics, through
numba's ``overload``); the i-th lowest to a parallel bit deposit where the kernels are compiled
for a CPU that has one (BMI2), else to i steps that each clear the lowest item.
"""

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.registry import cpu_target
from numba.extending import intrinsic, overload

from simulator import PLAIN_NUMBA
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


@intrinsic
def _pdep(typingctx, source, mask):
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
        deposit = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(deposit, args)

    return types.int64(types.int64, types.int64), codegen


def compiled_with_bit_deposit() -> bool:
    """Whether numba compiles for a CPU with BMI2's parallel bit deposit (its cache keys each
    kernel by the CPU and its features, so a kernel using it never runs on a CPU without).
    Read from numba's code generator, not its public options: the plain mode does without."""
    return not PLAIN_NUMBA and "+bmi2" in cpu_target.target_context.codegen().magic_tuple()[2]


def count(mask):
    """How many items a mask holds."""
    return bin(int(mask)).count("1")


def lowest(mask):
    """The lowest item of a non-empty mask."""
    return (int(mask) & -int(mask)).bit_length() - 1


def nth(mask, i):
    """The i-th lowest item of a mask (0 <= i < count(mask))."""
    mask = int(mask)
    for _ in range(i):
        mask &= mask - 1
    return lowest(mask)


@overload(count)
def _compiled_count(mask):
    return lambda mask: _ctpop(mask)


@overload(lowest)
def _compiled_lowest(mask):
    return lambda mask: _cttz(mask)


def nth_by_deposit(mask, i):
    """:func:`nth` compiled for a CPU with BMI2: the bit deposit of ``1 << i`` into the mask."""
    return _cttz(_pdep(1 << i, mask))


def nth_by_steps(mask, i):
    """:func:`nth` compiled for any other CPU: i steps that each clear the lowest item."""
    for _ in range(i):
        mask &= mask - 1
    return _cttz(mask)


@overload(nth)
def _compiled_nth(mask, i):
    return nth_by_deposit if compiled_with_bit_deposit() else nth_by_steps


@accessor
def bit(item):
    """The mask of one item."""
    return 1 << item
