"""The conformance kit and the plugin report, behind the public doors core.probes and core.testing."""
