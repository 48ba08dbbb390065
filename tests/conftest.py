"""Shared test helpers.

The simulated board's sensor model is the physical one by default (docs/simulator.md). A test
of a user-visible outcome runs under it; where today's firmware does not yet reach that outcome
under the physical model (issue 14: the tracker was written for the ideal world), the test runs
under both models and its physical run is marked as a known failure with the reason, so every
run shows it (xfailed) and shows it fixed (xpassed) once the firmware gets there. Never a way
to make a test pass: docs/simulator.md lists each one under "Known failures".
"""
import pytest


@pytest.fixture
def known_physical_failure(request):
    """known_physical_failure(model, why): under model "physical", expect this test to fail
    for the reason why (non-strict: a fix shows as XPASS, never as a red suite)."""
    def mark(model, why):
        if model == "physical":
            request.applymarker(pytest.mark.xfail(reason="physical sensor model: " + why, strict=False))
    return mark
