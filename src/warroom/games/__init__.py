"""Game systems: one package per system, data tables beside the procedures that use them."""
