"""The capacity model: sizing, the layout search, cost, the startup budget, the rule-of-thumb functions."""
