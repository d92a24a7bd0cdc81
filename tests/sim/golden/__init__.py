"""Golden figures of the simulator tests, and the scripts (run by hand) that made them."""
