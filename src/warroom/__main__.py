"""``python -m warroom``: the same command line as ``warroom``."""

from warroom.cli import run

if __name__ == "__main__":
    run()
