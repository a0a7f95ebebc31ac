"""The procedure core: the dice interface, drivers, steps, registry and parameters."""
