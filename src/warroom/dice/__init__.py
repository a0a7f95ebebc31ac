"""Dice mathematics with exact integer weights, and seeded random sources."""
