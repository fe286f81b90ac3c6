"""The candidate version's benchmarks: ``join`` builds its parts in a list first."""


def sort(size: int = 5000) -> None:
    values = [(i * 7919) % size for i in range(size)]
    values.sort()


def join(size: int = 5000) -> None:
    parts = []
    for i in range(size):
        parts.append(str(i))
    "".join(parts)
