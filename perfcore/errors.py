"""One error shape for files users give us: the file's label and every problem in it."""

from __future__ import annotations


class FileProblems(ValueError):
    """A file that cannot be loaded; the message lists every problem found, one per line."""

    def __init__(self, label: str, problems: list[str]):
        self.label = str(label)
        self.problems = list(problems)
        listing = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{self.label}: {len(self.problems)} problem(s)\n{listing}")


class NotPublished(ValueError):
    """A calculation needs a figure its device does not publish (an empty spec cell)."""
