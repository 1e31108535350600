"""Bots that play from a seat's view; one module per game."""
