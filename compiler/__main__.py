"""``python -m compiler`` runs the warscribe command line."""
from compiler.cli import main

main()
