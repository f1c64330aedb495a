"""One measurement at a time per process: two timings at once would corrupt each other.

Every experiment run and every profile holds LOCK while it times; a caller that finds it
held says WAITING and waits its turn.
"""

import threading

LOCK = threading.Lock()
WAITING = "waiting for another measurement"


def measurement_in_progress() -> bool:
    """True while some thread of this process is measuring."""
    return LOCK.locked()
