"""A thread that follows the machine while a study's runs go and acts on what it finds every few tenths of a second
(the page cache budget's limit, scale/memory_budget.py; the emulated drives' shared time, scale/shared_time.py):
started as its context is entered, stopped and waited for as it is left."""

import threading
from abc import ABC, abstractmethod


class Following(ABC):
    THREAD = "tierbench-following"  # the thread's name, as a subclass says what it follows

    def __init__(self):
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _start_following(self) -> None:
        self._thread = threading.Thread(target=self._follow, name=self.THREAD, daemon=True)
        self._thread.start()

    def _stop_following(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    @abstractmethod
    def _follow(self) -> None:
        """The thread's loop: until `self._stop` is set, look and act every few tenths of a second."""
