// Structure property tests: being written.
