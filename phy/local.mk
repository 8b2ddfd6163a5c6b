# Physical layer: pure functions (link timing, optical budget, energy).
libtasknet_a_SOURCES +=
