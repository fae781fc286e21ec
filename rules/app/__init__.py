"""Front ends: the CLI, one lint run, plan, diff and the CrossGuard pack's logic."""
