//! The shared test suite: one set of checks run against every filter of the workspace.
