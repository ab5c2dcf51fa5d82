"""The Stop hook's single-flight claim, its run-again mark and the queue, on real files and real flocks."""

from __future__ import annotations

import fcntl
import os

from automem.extract.trigger import claim_paths, claim_worker, leave_mark, mark_left, take_mark


def test_a_mark_carries_what_its_stops_said_and_is_taken_once(tmp_path):
    home = str(tmp_path)
    again = claim_paths(home, "s-1")[2]
    os.makedirs(os.path.dirname(again))
    assert take_mark(home, "s-1") is None and not mark_left(home, "s-1")
    assert leave_mark(again) and leave_mark(again, stopped=True)
    assert mark_left(home, "s-1")
    assert take_mark(home, "s-1") == {"stopped"}
    assert not mark_left(home, "s-1") and take_mark(home, "s-1") is None
    assert os.listdir(os.path.dirname(again)) == []  # nothing left beside it


def test_a_claim_held_by_no_worker_queues_one_and_later_stops_leave_a_mark(tmp_path):
    """A holder that is no live worker (here this test process) may never read a mark: the first Stop gets the
    place in line, a Stop after it starts nothing and leaves a mark for the one waiting, with what it said."""
    home = str(tmp_path)
    claim, queue, again = claim_paths(home, "s-2")
    os.makedirs(os.path.dirname(claim))
    fd = os.open(claim, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        first = claim_worker(home, "s-2")
        assert first is not None and first[1] is True  # waits for the claim
        try:
            assert claim_worker(home, "s-2", stopped=True) is None
            assert take_mark(home, "s-2") == {"stopped"}
        finally:
            os.close(first[0])
    finally:
        os.close(fd)
    fresh = claim_worker(home, "s-2")  # nobody holds it now: this one runs at once
    assert fresh is not None and fresh[1] is False
    os.close(fresh[0])
