"""``python -m pathpool`` is the ``pathpool`` command."""

from .cli import main

main(prog_name="pathpool")
