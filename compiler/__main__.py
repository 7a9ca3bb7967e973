"""``python -m compiler`` runs the warscribe command line."""
from .cli import main

main()
