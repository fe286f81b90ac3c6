"""The baseline version's benchmarks: one function per benchmark name."""


def sort(size: int = 5000) -> None:
    values = [(i * 7919) % size for i in range(size)]
    values.sort()


def join(size: int = 5000) -> None:
    "".join(str(i) for i in range(size))
