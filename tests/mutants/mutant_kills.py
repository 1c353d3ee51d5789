"""pytest plugin of the mutant runner (run.py): how each failing test failed.

A mutant is killed only by a test that fails on an assertion (an ``AssertionError``, or
``pytest.fail`` / ``pytest.raises`` finding the rule broken); a test that crashes on another
exception (a ``NameError`` of a stale mutation, an ``IndexError``) has not checked the rule.
Each failure is appended to the file named by ``BALSIM_MUTANT_FAILURES`` as one line
``<kind>\\t<test id>\\t<exception>``, kind ``assertion`` or ``error``.  The run stops at the first
assertion failure (as ``-x`` would) but not at an error, so a later test can still kill the
mutant by an assertion.
"""

import os

import pytest

FAILURES_FILE = "BALSIM_MUTANT_FAILURES"
ASSERTIONS = (AssertionError, pytest.fail.Exception)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.excinfo is None:
        return
    asserted = call.when == "call" and call.excinfo.errisinstance(ASSERTIONS)
    what = call.excinfo.exconly().strip().splitlines()[0][:200]
    with open(os.environ[FAILURES_FILE], "a", encoding="utf-8") as f:
        f.write(f"{'assertion' if asserted else 'error'}\t{item.nodeid}\t{what}\n")
    if asserted:
        item.session.shouldfail = "a test failed on an assertion"
